// ICU's common data as one read-only symbol, as the toolchain's icu_packaged_data.cpp.o defines
// it, but from the filtered package build.sh made (its path and the symbol's name are set by
// Package.swift from FORCETERM_ICU_DATA). Linked before the toolchain's archive is searched, so
// that archive's 34 MB copy is never taken.
  .section .rodata.forceterm_icu_data,"a",@progbits
  .balign 16
  .globl ICU_DATA_SYMBOL
  .type ICU_DATA_SYMBOL,@object
ICU_DATA_SYMBOL:
  .incbin ICU_DATA_FILE
  .size ICU_DATA_SYMBOL, . - ICU_DATA_SYMBOL
  .section .note.GNU-stack,"",@progbits
