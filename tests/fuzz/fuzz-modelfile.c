/*
 * libFuzzer target: the model-file reader (chains and pools) on arbitrary bytes.
 * Beyond "no crash, no leak, no hang" (ASan, UBSan, LSan, -timeout) it asserts
 * the readers' promise: a refusal is one line naming the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cradle/cradle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[1024];
    const char *text = (const char *)data;
    int rc;
    msg[0] = '\0';
    cr_model *m = NULL; /* one reader for chains and pools */
    rc = cr_modelfile_parse(text, size, "fuzz.yaml", &m, msg, sizeof msg);
    cr_model_destroy(m);
    if (rc != CR_OK && (strncmp(msg, "fuzz.yaml", 9) != 0 || strchr(msg, '\n')))
        abort(); /* a refusal that does not name the file on one line */
    return 0;
}
