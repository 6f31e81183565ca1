/*
 * forceterm's part of its SQLite build (vendor/sqlite3mc/build.sh appends this file to the
 * SQLite3 Multiple Ciphers amalgamation, whose mcIoFileControl, mcReadWal and mcWriteMainDb it
 * renames to *Original).
 *
 * SQLite3 Multiple Ciphers encrypts at the file layer: the write-ahead log's frames are written
 * encrypted exactly as the store's pages are (the pager encrypts them, key and page number the
 * same), but a checkpoint, which copies frames from the log into the store, reads each frame
 * through the file layer (decrypted, its HMAC checked) and writes it back through it (encrypted
 * again, a new HMAC): two of the three passes each page makes through the cipher. SQLCipher, whose
 * codec sits in the pager, copies the encrypted bytes as they are. So does this: between SQLite's
 * SQLITE_FCNTL_CKPT_START and SQLITE_FCNTL_CKPT_DONE, which bracket exactly the copy loop of one
 * checkpoint on one thread, the frames read from that database's log and the pages written to it
 * pass through untouched. A damaged frame is still caught: by its log checksum before the copy,
 * and by its HMAC when the page is next read from the store.
 */

/* The database whose checkpoint this thread is copying, if any. */
static __thread sqlite3_file *forcetermCheckpointing = 0;

static int mcIoFileControl(sqlite3_file *pFile, int op, void *pArg)
{
  if (op == SQLITE_FCNTL_CKPT_START) {
    Codec *codec = ((sqlite3mc_file *)pFile)->codec;
    /* The legacy log format encrypts frames differently from pages: no raw copy there. */
    forcetermCheckpointing = (codec == 0 || codec->m_walLegacy == 0) ? pFile : 0;
  } else if (op == SQLITE_FCNTL_CKPT_DONE) {
    forcetermCheckpointing = 0;
  }
  return mcIoFileControlOriginal(pFile, op, pArg);
}

static int mcReadWal(sqlite3_file *pFile, const void *buffer, int count, sqlite3_int64 offset)
{
  sqlite3mc_file *mcFile = (sqlite3mc_file *)pFile;
  if (forcetermCheckpointing != 0 && forcetermCheckpointing == (sqlite3_file *)mcFile->pMainDb) return SQLITE_OK;
  return mcReadWalOriginal(pFile, buffer, count, offset);
}

static int mcWriteMainDb(sqlite3_file *pFile, const void *buffer, int count, sqlite3_int64 offset)
{
  if (forcetermCheckpointing != 0 && forcetermCheckpointing == pFile) {
    return REALFILE(pFile)->pMethods->xWrite(REALFILE(pFile), buffer, count, offset);
  }
  return mcWriteMainDbOriginal(pFile, buffer, count, offset);
}
