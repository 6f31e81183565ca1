// The filtered ICU data has no C interface: ICU finds it by its symbol (vendor/icu-data/README.md).
