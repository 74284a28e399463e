/*
 * fuzz/fuzz_cc_args.c -- libFuzzer target for the argument handling of
 * `autoanalyzer cc` (wrap/args.c): the input's lines are a compiler command
 * (the first line the compiler); an argument "@" reads the whole input back
 * as a response file.  Parsing must succeed or fail with a message, never
 * crash or leak; a parsed command must quote into a response file that
 * expands to the same arguments.
 */
#include "fuzz/fuzz_file.h"
#include "wrap/aa_wrap.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *const fuzz_replay_dirs[] = {"fuzz/corpus/cc_args", "tests/data/cc_args/fuzz-regress",
                                        NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *rsp;
    char *text = malloc(size + 1), *line, *next, **argv = NULL, at[600];
    int argc = 0, has_at = 0;
    aa_wrap_cmd cmd;
    aa_err err;
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    /* hermetic: no @FILE but the input itself (a lone "@" line) */
    for (size_t i = 0; i < size; i++)
        if (text[i] == '@' && !((i == 0 || text[i - 1] == '\n') &&
                                (i + 1 == size || text[i + 1] == '\n')))
            text[i] = '%';
    rsp = fuzz_put("args.rsp", text, size);
    snprintf(at, sizeof at, "@%s", rsp);
    for (line = text; line && argc < 256; line = next) {
        char **v;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        v = realloc(argv, (size_t)(argc + 2) * sizeof *v);
        if (!v)
            abort();
        argv = v;
        has_at |= !strcmp(line, "@");
        argv[argc++] = !strcmp(line, "@") ? at : line;
        argv[argc] = NULL;
        if (!next)
            break;
    }
    if (argc > 0 && aa_wrap_parse(argc, argv, &cmd, &err) == AA_OK) {
        /* the arguments as a response file read back the same */
        aa_buf b;
        int n2 = 0;
        char **v2 = NULL, at2[600];
        const char *p2;
        aa_buf_init(&b);
        aa_wrap_quote_response(&b, argc - 1, argv + 1);
        p2 = fuzz_put("quoted.rsp", b.data ? b.data : "", b.len);
        snprintf(at2, sizeof at2, "@%s", p2);
        {
            char *one[2] = {at2, NULL};
            int used = 0;
            if (!has_at && !memchr(data, '\0', size) &&
                aa_wrap_expand_response_files(1, one, &n2, &v2, &used, &err) == AA_OK) {
                int same = n2 == argc - 1;
                for (int i = 0; same && i < n2; i++)
                    same = !strcmp(v2[i], argv[i + 1]);
                if (!same) {
                    fprintf(stderr, "quoted response file reads back differently\n");
                    abort();
                }
                aa_wrap_free_argv(n2, v2);
            }
        }
        aa_buf_free(&b);
        aa_wrap_cmd_free(&cmd);
    }
    free(argv);
    free(text);
    return 0;
}
