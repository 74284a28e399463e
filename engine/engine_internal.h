/*
 * engine/engine_internal.h -- private to engine/: file-system helpers the
 * loader and the launcher share, and the notes collected for the user.
 */
#ifndef AA_ENGINE_INTERNAL_H
#define AA_ENGINE_INTERNAL_H

#include "engine/aa_engine.h"

int en_is_dir(const char *p);
/* dir holds experiment.xml or rank-N.xml files. */
/* Nonzero when dir holds profiles: bit 0 XML ones, bit 1 binary ones
 * (the runtime's binary form, AUTOANALYZER_FORMAT). */
int en_has_profiles(const char *dir);
/* Absolute path of p (relative to the working directory); malloc'd. */
char *en_absolute(const char *p);
/* Appends one line to r->notes. */
void en_note(aa_engine_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
