/*
 * profile/profile_internal.h -- private to profile/: what the model's
 * arrays assume of their allocations, for readers that fill them directly.
 */
#ifndef AA_PROFILE_INTERNAL_H
#define AA_PROFILE_INTERNAL_H

#include <stddef.h>

/* The model keeps no capacities: an array of n elements (processes,
 * threads, nodes; node values: aa_profile_cap_of(nnodes) * nmetrics) must
 * have room for aa_profile_cap_of(n), so that later additions through the
 * model's API find the room they assume. */
size_t aa_profile_cap_of(size_t n);

/* The binary writer's bytes of columns gathered in one pass over the
 * values (profile/binary.c; 32 MB): set smaller by the tests, so that a
 * small experiment is gathered a few columns at a time.  0 restores it. */
void aa_binary_set_gather_bytes(size_t bytes);

#endif
