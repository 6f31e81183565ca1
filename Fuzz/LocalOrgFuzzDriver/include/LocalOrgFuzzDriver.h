// Nothing to call from Swift: this target only gives the fuzzer its entry point.
