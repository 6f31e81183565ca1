// SwiftPM links an executable's entry point as <module>_main, not main; libFuzzer brings its own
// main. This entry point hands the arguments to libFuzzer's driver with the Swift target's input
// function.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int localorg_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

/* The importers' fuzzer (import-fuzz) links the same driver with its own input function. */
int import_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

/* The subscription conditions' fuzzer (condition-fuzz), likewise. */
int condition_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
