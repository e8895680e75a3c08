// The fault-injecting SQLite VFS shim (see fault_vfs.h). Every method forwards to the platform's
// default VFS; xWrite, xTruncate, xSync, xRead, xLock and xShmLock first ask FaultVfs whether to
// fail.
#include "fault_vfs.h"

#include <sqlite3.h>

#include <cstdlib>
#include <mutex>

namespace engram::fault {
namespace {

// Our file object: SQLite allocates szOsFile bytes; the real VFS's file lives right after ours.
struct ShimFile {
  sqlite3_file base;
  sqlite3_file* real;
};

sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_vfs g_shim_vfs;
FaultVfs* g_faults = nullptr;

sqlite3_file* Real(sqlite3_file* file) { return reinterpret_cast<ShimFile*>(file)->real; }

int ShimClose(sqlite3_file* file) {
  sqlite3_file* real = Real(file);
  return real->pMethods != nullptr ? real->pMethods->xClose(real) : SQLITE_OK;
}

int ShimRead(sqlite3_file* file, void* buffer, int amount, sqlite3_int64 offset) {
  if (g_faults->ShouldFail(FaultVfs::Operation::kRead)) return SQLITE_IOERR_READ;
  sqlite3_file* real = Real(file);
  return real->pMethods->xRead(real, buffer, amount, offset);
}

int ShimWrite(sqlite3_file* file, const void* buffer, int amount, sqlite3_int64 offset) {
  sqlite3_file* real = Real(file);
  if (g_faults->ShouldFail(FaultVfs::Operation::kWrite)) {
    if (g_faults->kind() == FaultKind::kWriteDiskFull) {
      // A short write: the disk filled up part way through.
      const int written = amount / 2;
      if (written > 0) real->pMethods->xWrite(real, buffer, written, offset);
      return SQLITE_FULL;
    }
    return SQLITE_IOERR_WRITE;
  }
  return real->pMethods->xWrite(real, buffer, amount, offset);
}

int ShimTruncate(sqlite3_file* file, sqlite3_int64 size) {
  if (g_faults->ShouldFail(FaultVfs::Operation::kWrite)) {
    return g_faults->kind() == FaultKind::kWriteDiskFull ? SQLITE_FULL : SQLITE_IOERR_TRUNCATE;
  }
  sqlite3_file* real = Real(file);
  return real->pMethods->xTruncate(real, size);
}

int ShimSync(sqlite3_file* file, int flags) {
  if (g_faults->ShouldFail(FaultVfs::Operation::kSync)) return SQLITE_IOERR_FSYNC;
  sqlite3_file* real = Real(file);
  return real->pMethods->xSync(real, flags);
}

int ShimFileSize(sqlite3_file* file, sqlite3_int64* size) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xFileSize(real, size);
}

int ShimLock(sqlite3_file* file, int level) {
  if (g_faults->ShouldFail(FaultVfs::Operation::kLock)) return SQLITE_BUSY;
  sqlite3_file* real = Real(file);
  return real->pMethods->xLock(real, level);
}

int ShimUnlock(sqlite3_file* file, int level) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xUnlock(real, level);
}

int ShimCheckReservedLock(sqlite3_file* file, int* reserved) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xCheckReservedLock(real, reserved);
}

int ShimFileControl(sqlite3_file* file, int op, void* arg) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xFileControl(real, op, arg);
}

int ShimSectorSize(sqlite3_file* file) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xSectorSize(real);
}

int ShimDeviceCharacteristics(sqlite3_file* file) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xDeviceCharacteristics(real);
}

int ShimShmMap(sqlite3_file* file, int region, int region_size, int extend,
               void volatile** mapped) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xShmMap(real, region, region_size, extend, mapped);
}

int ShimShmLock(sqlite3_file* file, int offset, int count, int flags) {
  if ((flags & SQLITE_SHM_LOCK) != 0 && g_faults->ShouldFail(FaultVfs::Operation::kLock)) {
    return SQLITE_BUSY;
  }
  sqlite3_file* real = Real(file);
  return real->pMethods->xShmLock(real, offset, count, flags);
}

void ShimShmBarrier(sqlite3_file* file) {
  sqlite3_file* real = Real(file);
  real->pMethods->xShmBarrier(real);
}

int ShimShmUnmap(sqlite3_file* file, int delete_flag) {
  sqlite3_file* real = Real(file);
  return real->pMethods->xShmUnmap(real, delete_flag);
}

int ShimFetch(sqlite3_file* file, sqlite3_int64 offset, int amount, void** pointer) {
  // No memory-mapped reads: every page read goes through xRead, where faults are injected.
  static_cast<void>(file);
  static_cast<void>(offset);
  static_cast<void>(amount);
  *pointer = nullptr;
  return SQLITE_OK;
}

int ShimUnfetch(sqlite3_file* file, sqlite3_int64 offset, void* pointer) {
  static_cast<void>(file);
  static_cast<void>(offset);
  static_cast<void>(pointer);
  return SQLITE_OK;
}

const sqlite3_io_methods kShimMethods = {
    3,
    ShimClose,
    ShimRead,
    ShimWrite,
    ShimTruncate,
    ShimSync,
    ShimFileSize,
    ShimLock,
    ShimUnlock,
    ShimCheckReservedLock,
    ShimFileControl,
    ShimSectorSize,
    ShimDeviceCharacteristics,
    ShimShmMap,
    ShimShmLock,
    ShimShmBarrier,
    ShimShmUnmap,
    ShimFetch,
    ShimUnfetch,
};

int ShimOpen(sqlite3_vfs* /*vfs*/, const char* name, sqlite3_file* file, int flags,
             int* out_flags) {
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->real = reinterpret_cast<sqlite3_file*>(shim + 1);
  shim->base.pMethods = nullptr;
  const int rc = g_real_vfs->xOpen(g_real_vfs, name, shim->real, flags, out_flags);
  // SQLite calls xClose exactly when pMethods is set, so mirror the real file's state.
  if (shim->real->pMethods != nullptr) shim->base.pMethods = &kShimMethods;
  return rc;
}

int ShimDelete(sqlite3_vfs* /*vfs*/, const char* name, int sync_dir) {
  return g_real_vfs->xDelete(g_real_vfs, name, sync_dir);
}

int ShimAccess(sqlite3_vfs* /*vfs*/, const char* name, int flags, int* result) {
  return g_real_vfs->xAccess(g_real_vfs, name, flags, result);
}

int ShimFullPathname(sqlite3_vfs* /*vfs*/, const char* name, int size, char* out) {
  return g_real_vfs->xFullPathname(g_real_vfs, name, size, out);
}

void* ShimDlOpen(sqlite3_vfs* /*vfs*/, const char* name) {
  return g_real_vfs->xDlOpen(g_real_vfs, name);
}

void ShimDlError(sqlite3_vfs* /*vfs*/, int size, char* message) {
  g_real_vfs->xDlError(g_real_vfs, size, message);
}

void (*ShimDlSym(sqlite3_vfs* /*vfs*/, void* handle, const char* symbol))(void) {
  return g_real_vfs->xDlSym(g_real_vfs, handle, symbol);
}

void ShimDlClose(sqlite3_vfs* /*vfs*/, void* handle) { g_real_vfs->xDlClose(g_real_vfs, handle); }

int ShimRandomness(sqlite3_vfs* /*vfs*/, int size, char* out) {
  return g_real_vfs->xRandomness(g_real_vfs, size, out);
}

int ShimSleep(sqlite3_vfs* /*vfs*/, int micros) { return g_real_vfs->xSleep(g_real_vfs, micros); }

int ShimCurrentTime(sqlite3_vfs* /*vfs*/, double* now) {
  return g_real_vfs->xCurrentTime(g_real_vfs, now);
}

int ShimGetLastError(sqlite3_vfs* /*vfs*/, int size, char* message) {
  return g_real_vfs->xGetLastError(g_real_vfs, size, message);
}

int ShimCurrentTimeInt64(sqlite3_vfs* /*vfs*/, sqlite3_int64* now) {
  return g_real_vfs->xCurrentTimeInt64(g_real_vfs, now);
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kWriteIoError:
      return "write-io-error";
    case FaultKind::kWriteDiskFull:
      return "write-disk-full";
    case FaultKind::kSyncIoError:
      return "sync-io-error";
    case FaultKind::kReadIoError:
      return "read-io-error";
    case FaultKind::kLockBusy:
      return "lock-busy";
  }
  return "unknown";
}

FaultVfs& FaultVfs::Install() {
  static FaultVfs* instance = [] {
    auto* faults = new FaultVfs();
    g_faults = faults;
    g_real_vfs = sqlite3_vfs_find(nullptr);
    if (g_real_vfs == nullptr || g_real_vfs->iVersion < 2) std::abort();
    g_shim_vfs = sqlite3_vfs{};
    g_shim_vfs.iVersion = 2;
    g_shim_vfs.szOsFile = static_cast<int>(sizeof(ShimFile)) + g_real_vfs->szOsFile;
    g_shim_vfs.mxPathname = g_real_vfs->mxPathname;
    g_shim_vfs.zName = "engram-fault";
    g_shim_vfs.xOpen = ShimOpen;
    g_shim_vfs.xDelete = ShimDelete;
    g_shim_vfs.xAccess = ShimAccess;
    g_shim_vfs.xFullPathname = ShimFullPathname;
    g_shim_vfs.xDlOpen = ShimDlOpen;
    g_shim_vfs.xDlError = ShimDlError;
    g_shim_vfs.xDlSym = ShimDlSym;
    g_shim_vfs.xDlClose = ShimDlClose;
    g_shim_vfs.xRandomness = ShimRandomness;
    g_shim_vfs.xSleep = ShimSleep;
    g_shim_vfs.xCurrentTime = ShimCurrentTime;
    g_shim_vfs.xGetLastError = ShimGetLastError;
    g_shim_vfs.xCurrentTimeInt64 = ShimCurrentTimeInt64;
    if (sqlite3_vfs_register(&g_shim_vfs, /*makeDflt=*/1) != SQLITE_OK) std::abort();
    return faults;
  }();
  return *instance;
}

void FaultVfs::Arm(FaultKind kind, std::int64_t nth) {
  armed_.store(false);
  ResetCounts();
  injected_.store(0);
  kind_.store(kind);
  nth_.store(nth);
  armed_.store(true);
}

void FaultVfs::Disarm() { armed_.store(false); }

void FaultVfs::ResetCounts() {
  writes_.store(0);
  syncs_.store(0);
  reads_.store(0);
  locks_.store(0);
}

OperationCounts FaultVfs::counts() const {
  return {writes_.load(), syncs_.load(), reads_.load(), locks_.load()};
}

bool FaultVfs::ShouldFail(Operation operation) {
  std::int64_t count = 0;
  Operation target = Operation::kWrite;
  const FaultKind kind = kind_.load();
  switch (kind) {
    case FaultKind::kWriteIoError:
    case FaultKind::kWriteDiskFull:
      target = Operation::kWrite;
      break;
    case FaultKind::kSyncIoError:
      target = Operation::kSync;
      break;
    case FaultKind::kReadIoError:
      target = Operation::kRead;
      break;
    case FaultKind::kLockBusy:
      target = Operation::kLock;
      break;
  }
  switch (operation) {
    case Operation::kWrite:
      count = ++writes_;
      break;
    case Operation::kSync:
      count = ++syncs_;
      break;
    case Operation::kRead:
      count = ++reads_;
      break;
    case Operation::kLock:
      count = ++locks_;
      break;
  }
  if (!armed_.load() || operation != target) return false;
  const std::int64_t nth = nth_.load();
  // Busy fires once; a broken or full disk stays broken.
  const bool fail = kind == FaultKind::kLockBusy ? count == nth : count >= nth;
  if (fail) ++injected_;
  return fail;
}

}  // namespace engram::fault
