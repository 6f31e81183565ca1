/*
 * forceterm's part of its SQLite build (vendor/sqlite3mc/build.sh appends this file to the
 * SQLite3 Multiple Ciphers amalgamation, whose sqlite3WalFrames and sqlite3mcPagerCodec it renames
 * to *Original).
 *
 * A commit writes its changed pages to the write-ahead log one after another, each page encrypted
 * and given its HMAC (sqlite3mcPagerCodec) just before its frame is written, all on the committing
 * thread. A first sync commits a few hundred 16 KB pages per page of records, and that cipher work
 * was about an eighth of the thread that stores them (perf, `make bench-sync`), while the machine's
 * other cores waited. A page's encryption depends on nothing but the page, so here the pages of one
 * commit are encrypted first, shared out between the committing thread and helper threads (one
 * fewer than the cores this process may run on, at most three), and the frames are then written
 * from those buffers exactly as before: in order, their checksums chained, over the same bytes the
 * one-by-one encryption would produce (a random IV per page either way). A commit of more pages
 * than FT_PARALLEL_CHUNK_BYTES holds (an index build) is written in parts of that size, the parts
 * before the last as SQLite writes pages that overflow its cache in the middle of a transaction:
 * frames that count only once the commit frame follows. Small commits, a store not encrypted in
 * SQLCipher's scheme, or another commit's batch in progress take the usual way.
 * FORCETERM_WAL_ENCRYPT_THREADS sets the number of helpers (0: none), to compare.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define FT_PARALLEL_MIN_PAGES 16
#define FT_PARALLEL_CHUNK_BYTES (8 * 1024 * 1024)
#define FT_PARALLEL_MAX_HELPERS 3

/* One commit's pages and the buffers their encrypted copies go to. */
typedef struct {
  SQLCipherCipher cipher;  /* the codec's write cipher, copied: each thread gets its own AES context */
  int reserved;
  int pageSize;
  int count;
  PgHdr **pages;
  unsigned char *encrypted;  /* count pages of pageSize */
  int cursor;                /* where sqlite3mcPagerCodec looks first: frames come in list order */
  atomic_int next;           /* the next page a thread takes */
  atomic_int failed;
} FtBatch;

static pthread_mutex_t ftPoolMutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ftPoolWork = PTHREAD_COND_INITIALIZER;
static pthread_cond_t ftPoolIdle = PTHREAD_COND_INITIALIZER;
static FtBatch *ftPoolBatch = 0;     /* the batch helpers may join, if any */
static unsigned ftPoolGeneration = 0; /* bumped for each batch, so a helper wakes once per batch */
static int ftPoolWorking = 0;         /* helpers inside ftPoolBatch */
static int ftPoolHelpers = -1;        /* helpers started; -1 before the first batch */
static int ftPoolBusy = 0;            /* a batch is being encrypted */

/* The batch whose buffers this thread's sqlite3WalFramesOriginal writes from. */
static __thread FtBatch *ftPrecomputed = 0;

static void ftEncryptPages(FtBatch *batch)
{
  Rijndael aes;
  SQLCipherCipher cipher = batch->cipher;
  RijndaelCreate(&aes);
  cipher.m_aes = &aes;
  for (;;) {
    int i = atomic_fetch_add(&batch->next, 1);
    if (i >= batch->count) break;
    unsigned char *page = batch->encrypted + (size_t)i * batch->pageSize;
    memcpy(page, batch->pages[i]->pData, batch->pageSize);
    if (EncryptPageSQLCipherCipher(&cipher, (int)batch->pages[i]->pgno, page, batch->pageSize, batch->reserved) != SQLITE_OK) {
      atomic_store(&batch->failed, 1);
    }
  }
  sqlite3mcSecureZeroMemory(&cipher, sizeof(cipher));
  sqlite3mcSecureZeroMemory(&aes, sizeof(aes));
}

static void *ftHelper(void *unused)
{
  unsigned seen = 0;
  (void)unused;
  pthread_mutex_lock(&ftPoolMutex);
  for (;;) {
    while (ftPoolGeneration == seen) pthread_cond_wait(&ftPoolWork, &ftPoolMutex);
    seen = ftPoolGeneration;
    FtBatch *batch = ftPoolBatch;
    if (batch == 0) continue;  /* that batch is already done */
    ftPoolWorking++;
    pthread_mutex_unlock(&ftPoolMutex);
    ftEncryptPages(batch);
    pthread_mutex_lock(&ftPoolMutex);
    if (--ftPoolWorking == 0) pthread_cond_broadcast(&ftPoolIdle);
  }
  return 0;
}

/* How many helpers to run: FORCETERM_WAL_ENCRYPT_THREADS, or the cores this process may use less one. */
static int ftWantedHelpers(void)
{
  const char *setting = getenv("FORCETERM_WAL_ENCRYPT_THREADS");
  int wanted;
  if (setting != 0 && *setting != 0) {
    wanted = atoi(setting);
  } else {
    cpu_set_t cpus;
    wanted = (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) ? CPU_COUNT(&cpus) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    wanted -= 1;
  }
  if (wanted < 0) wanted = 0;
  if (wanted > FT_PARALLEL_MAX_HELPERS) wanted = FT_PARALLEL_MAX_HELPERS;
  return wanted;
}

/* A child of fork() has none of the helpers, and the pool's lock may have been held by a thread
 * that is not there: it starts afresh. */
static void ftPoolLockForFork(void) { pthread_mutex_lock(&ftPoolMutex); }
static void ftPoolUnlockAfterFork(void) { pthread_mutex_unlock(&ftPoolMutex); }
static void ftPoolResetInChild(void)
{
  pthread_mutex_init(&ftPoolMutex, 0);
  pthread_cond_init(&ftPoolWork, 0);
  pthread_cond_init(&ftPoolIdle, 0);
  ftPoolBatch = 0;
  ftPoolWorking = 0;
  ftPoolBusy = 0;
  ftPoolHelpers = -1;
}

/* Called with ftPoolMutex held. Helpers take no signals: the application's threads handle them. */
static void ftStartHelpers(void)
{
  int wanted = ftWantedHelpers();
  sigset_t all, previous;
  static int forkHandlersSet = 0;
  if (!forkHandlersSet) {
    pthread_atfork(ftPoolLockForFork, ftPoolUnlockAfterFork, ftPoolResetInChild);
    forkHandlersSet = 1;
  }
  ftPoolHelpers = 0;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  while (ftPoolHelpers < wanted) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int started = pthread_create(&thread, &attributes, ftHelper, 0) == 0;
    pthread_attr_destroy(&attributes);
    if (!started) break;
    ftPoolHelpers++;
  }
  pthread_sigmask(SIG_SETMASK, &previous, 0);
}

/* Encrypts the batch with the helpers; 0 when they are busy with another or there are none. */
static int ftEncryptTogether(FtBatch *batch)
{
  pthread_mutex_lock(&ftPoolMutex);
  if (ftPoolHelpers < 0) ftStartHelpers();
  if (ftPoolBusy || ftPoolHelpers == 0) {
    pthread_mutex_unlock(&ftPoolMutex);
    return 0;
  }
  ftPoolBusy = 1;
  ftPoolBatch = batch;
  ftPoolGeneration++;
  pthread_cond_broadcast(&ftPoolWork);
  pthread_mutex_unlock(&ftPoolMutex);

  ftEncryptPages(batch);

  pthread_mutex_lock(&ftPoolMutex);
  ftPoolBatch = 0;  /* a helper waking from now on finds nothing to join */
  while (ftPoolWorking > 0) pthread_cond_wait(&ftPoolIdle, &ftPoolMutex);
  ftPoolBusy = 0;
  pthread_mutex_unlock(&ftPoolMutex);
  return 1;
}

/* The codec that encrypts this log's pages when sqlite3mcPagerCodec would, in SQLCipher's scheme; 0 otherwise. */
static Codec *ftCodec(Wal *pWal, int szPage)
{
  sqlite3_file *file = pWal->pDbFd;
  Codec *codec;
  if (file == 0 || (file->pMethods != &mcIoMethodsGlobal1 && file->pMethods != &mcIoMethodsGlobal2 &&
                    file->pMethods != &mcIoMethodsGlobal3)) return 0;
  codec = ((sqlite3mc_file *)file)->codec;
  if (codec == 0 || codec->m_walLegacy != 0 || !sqlite3mcIsEncrypted(codec) || !sqlite3mcHasWriteCipher(codec)) return 0;
  if (codec->m_writeCipherType < 1 || codec->m_writeCipherType > CODEC_COUNT_MAX ||
      globalCodecDescriptorTable[codec->m_writeCipherType - 1].m_encryptPage != EncryptPageSQLCipherCipher) return 0;
  if (sqlite3mcGetPageSize(codec) != szPage) return 0;
  return codec;
}

/* Fills in the batch for the count pages of pList, encrypted by codec (ftCodec's); 0 when too few or out of memory. */
static int ftPrepareBatch(FtBatch *batch, Codec *codec, int szPage, PgHdr *pList, int count)
{
  PgHdr *p;
  int i = 0;

  if (count < FT_PARALLEL_MIN_PAGES) return 0;

  memset(batch, 0, sizeof(*batch));
  batch->pages = sqlite3_malloc64(sizeof(PgHdr *) * (sqlite3_uint64)count);
  batch->encrypted = sqlite3_malloc64((sqlite3_uint64)count * szPage);
  if (batch->pages == 0 || batch->encrypted == 0) {
    sqlite3_free(batch->pages);
    sqlite3_free(batch->encrypted);
    return 0;
  }
  for (p = pList; p; p = p->pDirty) batch->pages[i++] = p;
  batch->cipher = *(SQLCipherCipher *)codec->m_writeCipher;
  batch->cipher.m_aes = 0;
  batch->reserved = (codec->m_writeReserved >= 0) ? codec->m_writeReserved : codec->m_reserved;
  batch->pageSize = szPage;
  batch->count = count;
  atomic_init(&batch->next, 0);
  atomic_init(&batch->failed, 0);
  return 1;
}

static void ftFreeBatch(FtBatch *batch)
{
  sqlite3mcSecureZeroMemory(&batch->cipher, sizeof(batch->cipher));
  sqlite3_free(batch->pages);
  sqlite3_free(batch->encrypted);
}

/* Writes the frames of pList (count pages) with its pages encrypted together beforehand. */
static int ftWriteFrames(Codec *codec, Wal *pWal, int szPage, PgHdr *pList, int count, Pgno nTruncate, int isCommit, int sync_flags)
{
  FtBatch batch;
  int rc;
  if (!ftPrepareBatch(&batch, codec, szPage, pList, count)) {
    return sqlite3WalFramesOriginal(pWal, szPage, pList, nTruncate, isCommit, sync_flags);
  }
  if (!ftEncryptTogether(&batch) || atomic_load(&batch.failed)) {
    ftFreeBatch(&batch);
    return sqlite3WalFramesOriginal(pWal, szPage, pList, nTruncate, isCommit, sync_flags);
  }
  ftPrecomputed = &batch;
  rc = sqlite3WalFramesOriginal(pWal, szPage, pList, nTruncate, isCommit, sync_flags);
  ftPrecomputed = 0;
  ftFreeBatch(&batch);
  return rc;
}

SQLITE_PRIVATE int sqlite3WalFrames(Wal *pWal, int szPage, PgHdr *pList, Pgno nTruncate, int isCommit, int sync_flags)
{
  int chunkPages = FT_PARALLEL_CHUNK_BYTES / szPage;
  Codec *codec = (ftPrecomputed == 0 && chunkPages >= FT_PARALLEL_MIN_PAGES) ? ftCodec(pWal, szPage) : 0;
  if (codec == 0) {
    return sqlite3WalFramesOriginal(pWal, szPage, pList, nTruncate, isCommit, sync_flags);
  }
  for (;;) {
    PgHdr *last = pList, *rest;
    int n = 1, rc;
    while (n < chunkPages && last->pDirty != 0) { last = last->pDirty; n++; }
    rest = last->pDirty;
    if (rest == 0) return ftWriteFrames(codec, pWal, szPage, pList, n, nTruncate, isCommit, sync_flags);
    /* A part before the last: frames of the transaction, not yet its commit (as pagerStress writes them). */
    last->pDirty = 0;
    rc = ftWriteFrames(codec, pWal, szPage, pList, n, 0, 0, sync_flags);
    last->pDirty = rest;
    if (rc != SQLITE_OK) return rc;
    pList = rest;
  }
}

SQLITE_PRIVATE void* sqlite3mcPagerCodec(PgHdrMC* pPg)
{
  FtBatch *batch = ftPrecomputed;
  if (batch != 0) {
    int i;
    if (batch->cursor < batch->count && batch->pages[batch->cursor] == pPg) {
      return batch->encrypted + (size_t)(batch->cursor++) * batch->pageSize;
    }
    for (i = 0; i < batch->count; i++) {
      if (batch->pages[i] == pPg) return batch->encrypted + (size_t)i * batch->pageSize;
    }
  }
  return sqlite3mcPagerCodecOriginal(pPg);
}
