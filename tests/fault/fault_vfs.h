// A fault-injecting SQLite VFS for the fault-injection suite (in the spirit of SQLite's own
// malloc/IO-error tests): a shim over the platform's default VFS that counts the file operations
// every connection of the process makes and fails the Nth one of a chosen kind.
//
//   FaultVfs& vfs = FaultVfs::Install();  // becomes SQLite's default VFS for the whole process
//   vfs.Arm(FaultKind::kWriteDiskFull, /*nth=*/12);
//   ... run engine operations: the 12th xWrite and every later one fail with SQLITE_FULL ...
//   vfs.Disarm();
//
// Fault kinds and what each injects:
//   kWriteIoError  the Nth xWrite / xTruncate writes nothing and returns SQLITE_IOERR_WRITE;
//   kWriteDiskFull the Nth xWrite writes the first half of its bytes (a short write) and returns
//                  SQLITE_FULL, like a disk that filled up mid-write;
//   kSyncIoError   the Nth xSync returns SQLITE_IOERR_FSYNC without syncing;
//   kReadIoError   the Nth xRead returns SQLITE_IOERR_READ;
//   kLockBusy      the Nth lock request (xLock, or an xShmLock that takes a lock) returns
//                  SQLITE_BUSY, as if another process held the lock.
// I/O and disk-full faults persist (every later operation of that kind fails too) until Disarm,
// the way a broken or full disk stays broken; a busy fault fires once (a lock released by the other
// process), so SQLite's busy handler may retry past it.
//
// The engine needs no seam: it opens its store with the default VFS, which this shim replaces.
// Thread-safety: counters are atomic; Arm / Disarm must not race with each other.
#ifndef ENGRAM_TESTS_FAULT_FAULT_VFS_H_
#define ENGRAM_TESTS_FAULT_FAULT_VFS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace engram::fault {

enum class FaultKind { kWriteIoError, kWriteDiskFull, kSyncIoError, kReadIoError, kLockBusy };
inline constexpr std::array<FaultKind, 5> kAllFaultKinds = {
    FaultKind::kWriteIoError, FaultKind::kWriteDiskFull, FaultKind::kSyncIoError,
    FaultKind::kReadIoError, FaultKind::kLockBusy};
std::string_view FaultKindName(FaultKind kind);

// File operations counted since the last Arm / ResetCounts, by the class a FaultKind targets.
struct OperationCounts {
  std::int64_t writes = 0;  // xWrite + xTruncate
  std::int64_t syncs = 0;   // xSync
  std::int64_t reads = 0;   // xRead
  std::int64_t locks = 0;   // xLock + locking xShmLock
};

class FaultVfs {
 public:
  // Registers the shim as the default VFS (first call only) and returns the process's instance.
  static FaultVfs& Install();

  // Resets the counters and fails the `nth` (1-based) operation of `kind`'s class from now on.
  void Arm(FaultKind kind, std::int64_t nth);
  // Stops injecting; counters keep counting.
  void Disarm();
  // Resets the counters (Disarm first to count a fault-free run).
  void ResetCounts();

  OperationCounts counts() const;
  // Operations failed since the last Arm.
  std::int64_t faults_injected() const { return injected_.load(); }

  // The classes of file operation the shim counts.
  enum class Operation { kWrite, kSync, kRead, kLock };
  // Called by the shim's methods: counts one operation and says whether it fails.
  bool ShouldFail(Operation operation);
  // The armed kind (meaningful while ShouldFail returns true).
  FaultKind kind() const { return kind_.load(); }

 private:
  FaultVfs() = default;

  std::atomic<bool> armed_{false};
  std::atomic<FaultKind> kind_{FaultKind::kWriteIoError};
  std::atomic<std::int64_t> nth_{0};
  std::atomic<std::int64_t> injected_{0};
  std::atomic<std::int64_t> writes_{0};
  std::atomic<std::int64_t> syncs_{0};
  std::atomic<std::int64_t> reads_{0};
  std::atomic<std::int64_t> locks_{0};
};

}  // namespace engram::fault

#endif  // ENGRAM_TESTS_FAULT_FAULT_VFS_H_
