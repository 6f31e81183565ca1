/*
 * forceterm's part of its SQLite build (vendor/sqlite3mc/build.sh appends this file to the
 * SQLite3 Multiple Ciphers amalgamation, whose own sqlcipher_hmac it renames to
 * sqlcipher_hmac_portable).
 *
 * SQLCipher 4's format puts an HMAC-SHA512 on every page, computed at every write and checked at
 * every read from the file. The amalgamation's SHA-512 is portable C; OpenSSL's (already loaded
 * into every forceterm process by libcurl) is assembly and about twice as fast on these machines,
 * and SHA-512 was a quarter of an encrypted store's write time. The result is the same HMAC, so
 * the file format does not change; SHA-1 and SHA-256 (older SQLCipher formats) stay portable.
 */
#define OPENSSL_API_COMPAT 10101 /* SHA512_Init and friends: the assembly without a provider lookup */
#include <openssl/sha.h>
#include <string.h>

SQLITE_PRIVATE
void sqlcipher_hmac(int algorithm, unsigned char *key, int nkey, unsigned char *in, int in_sz,
                    unsigned char *in2, int in2_sz, unsigned char *out)
{
  if (algorithm == 0 || algorithm == 1) {
    sqlcipher_hmac_portable(algorithm, key, nkey, in, in_sz, in2, in2_sz, out);
    return;
  }
  unsigned char block[SHA512_CBLOCK];
  unsigned char inner[SHA512_DIGEST_LENGTH];
  SHA512_CTX ctx;

  memset(block, 0, sizeof block);
  if (nkey > SHA512_CBLOCK) {
    SHA512(key, (size_t)nkey, block);
  } else if (nkey > 0) {
    memcpy(block, key, (size_t)nkey);
  }

  for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36;
  SHA512_Init(&ctx);
  SHA512_Update(&ctx, block, sizeof block);
  SHA512_Update(&ctx, in, (size_t)in_sz);
  if (in2 != NULL) SHA512_Update(&ctx, in2, (size_t)in2_sz);
  SHA512_Final(inner, &ctx);

  for (size_t i = 0; i < sizeof block; i++) block[i] ^= 0x36 ^ 0x5c;
  SHA512_Init(&ctx);
  SHA512_Update(&ctx, block, sizeof block);
  SHA512_Update(&ctx, inner, sizeof inner);
  SHA512_Final(out, &ctx);

  sqlite3mcSecureZeroMemory(block, sizeof block);
  sqlite3mcSecureZeroMemory(inner, sizeof inner);
  sqlite3mcSecureZeroMemory(&ctx, sizeof ctx);
}
