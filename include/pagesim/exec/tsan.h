// ThreadSanitizer annotations for Abseil's Mutex. Debian's libabsl is not built with TSan, so
// TSan cannot see the happens-before edges its Mutex creates; these calls tell it, and compile
// to nothing in other builds.
#pragma once

#include <absl/synchronization/mutex.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define PAGESIM_TSAN_ACQUIRE(addr) __tsan_acquire(const_cast<void*>(static_cast<const void*>(addr)))
#define PAGESIM_TSAN_RELEASE(addr) __tsan_release(const_cast<void*>(static_cast<const void*>(addr)))
#else
#define PAGESIM_TSAN_ACQUIRE(addr) ((void)(addr))
#define PAGESIM_TSAN_RELEASE(addr) ((void)(addr))
#endif

namespace pagesim {

// absl::MutexLock that TSan understands.
class ABSL_SCOPED_LOCKABLE TsanMutexLock {
 public:
  explicit TsanMutexLock(absl::Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
    PAGESIM_TSAN_ACQUIRE(mu_);
  }
  ~TsanMutexLock() ABSL_UNLOCK_FUNCTION() {
    PAGESIM_TSAN_RELEASE(mu_);
    mu_->Unlock();
  }
  TsanMutexLock(const TsanMutexLock&) = delete;
  TsanMutexLock& operator=(const TsanMutexLock&) = delete;

 private:
  absl::Mutex* mu_;
};

}  // namespace pagesim
