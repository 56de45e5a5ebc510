// Result files: atomic writes and the per-run procfs directory.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "paths.h"

namespace pagesim::report {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw InputError(fmt::format("cannot write '{}': {}: {}", path, what, std::strerror(err)));
}

// Closes the descriptor and removes the temporary file unless the write was committed.
class TempFile {
 public:
  explicit TempFile(const std::string& target) {
    static std::atomic<unsigned> counter{0};
    const fs::path t(target);
    const fs::path dir = t.has_parent_path() ? t.parent_path() : fs::path(".");
    for (int attempt = 0; attempt < 100; ++attempt) {
      path_ = (dir / fmt::format(".{}.tmp.{}.{}", t.filename().string(), ::getpid(), counter++)).string();
      // 0666 & ~umask, like any file the user creates; O_EXCL: never reuse someone's file.
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0 || errno != EEXIST) break;
    }
    if (fd_ < 0) fail(target, "cannot create a temporary file in its directory", errno);
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor, reporting a deferred write error (NFS reports them at close).
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }
  void commit() { committed_ = true; }

 private:
  std::string path_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace

std::string safe_component(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == '=' || c == '_';
    out += keep ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

namespace {

void write_all(int fd, const std::string& path, const std::string& content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "write failed", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// The file a path names once its symlinks are followed (a link's relative target is read from
// the link's directory). The last component may not exist yet.
fs::path follow_links(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) fail(path, "cannot read the symbolic link", ec.value());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fail(path, "too many levels of symbolic links", ELOOP);
}

// A device, FIFO or socket: written through, as a stream; it is never replaced.
void write_through(const std::string& path, const fs::path& target, const std::string& content) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open", errno);
  try {
    write_all(fd, path, content);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, "close failed", errno);
}

}  // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream file;
  if (path != "-") {
    file.open(path, std::ios::binary);
    if (!file) throw InputError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << (path == "-" ? std::cin.rdbuf() : file.rdbuf());
  return text.str();
}

void write_file_atomic(const std::string& path, const std::string& content) {
  if (path == "-") return write_all(STDOUT_FILENO, "<stdout>", content);
  const fs::path target = follow_links(path);
  std::error_code ec;
  const fs::file_status st = fs::status(target, ec);
  if (fs::is_directory(st)) fail(path, "it is a directory", EISDIR);
  if (fs::exists(st) && !fs::is_regular_file(st)) return write_through(path, target, content);
  // A regular file (or none yet): replaced atomically at the link's target, so a link stays a link.
  const std::string file = target.string();
  TempFile tmp(file);
  write_all(tmp.fd(), path, content);
  // The data must be on disk before the rename makes it visible under the final name.
  if (::fsync(tmp.fd()) != 0) fail(path, "fsync failed", errno);
  if (tmp.close() != 0) fail(path, "close failed", errno);
  if (::rename(tmp.path().c_str(), file.c_str()) != 0) fail(path, "rename failed", errno);
  tmp.commit();
}

namespace {

// Writes every run's files under `root`.
void write_proc_tree(const fs::path& root, const std::vector<run::RunResult>& runs) {
  for (const run::RunResult& r : runs) {
    fs::path d = root;
    if (!r.sweep_key.empty()) d /= safe_component(r.sweep_key + "=" + r.sweep_value);
    d /= safe_component(r.variant);
    d /= std::to_string(r.repeat);
    std::error_code ec;
    fs::create_directories(d, ec);
    if (ec) throw InputError(fmt::format("cannot create directory '{}': {}", d.string(), ec.message()));
    const std::pair<const char*, const std::string*> files[] = {
        {"buddyinfo", &r.proc.buddyinfo},       {"zoneinfo", &r.proc.zoneinfo}, {"vmstat", &r.proc.vmstat},
        {"pagetypeinfo", &r.proc.pagetypeinfo}, {"lock_stat", &r.proc.lock_stat}};
    for (const auto& [name, text] : files)
      if (!text->empty()) write_file_atomic((d / name).string(), *text);
    // The kernel log's "Bad page state" lines, as the run kept them (rate limited, as bad_page() is).
    std::string dmesg;
    for (const std::string& line : r.bad_page_reports) dmesg += line + "\n";
    if (!dmesg.empty()) write_file_atomic((d / "dmesg").string(), dmesg);
  }
}

}  // namespace

// The tree is written beside `dir` and swapped in whole, so an earlier run's folders never stay
// next to this run's, and a failure (a full disk) leaves the earlier tree as it was.
void write_proc_dir(const std::string& dir, const std::vector<run::RunResult>& runs) {
  const fs::path target = fs::path(dir).lexically_normal();
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string base = target.filename().string();
  const fs::path fresh = parent / fmt::format(".{}.new.{}", base, ::getpid());
  const fs::path old = parent / fmt::format(".{}.old.{}", base, ::getpid());
  std::error_code ec;
  fs::remove_all(fresh, ec);
  try {
    fs::create_directories(fresh);
    write_proc_tree(fresh, runs);
  } catch (...) {
    fs::remove_all(fresh, ec);
    throw;
  }
  const fs::file_status st = fs::symlink_status(target, ec);
  if (fs::exists(st) && !fs::is_directory(st)) {
    fs::remove_all(fresh, ec);
    throw InputError(fmt::format("cannot write '{}': it exists and is not a directory", dir));
  }
  const bool had = fs::exists(st);
  if (had && ::rename(target.c_str(), old.c_str()) != 0) {
    const int err = errno;
    fs::remove_all(fresh, ec);
    fail(dir, "cannot move the earlier tree aside", err);
  }
  if (::rename(fresh.c_str(), target.c_str()) != 0) {
    const int err = errno;
    if (had) ::rename(old.c_str(), target.c_str());  // put the earlier tree back
    fs::remove_all(fresh, ec);
    fail(dir, "cannot move the new tree in", err);
  }
  if (had) fs::remove_all(old, ec);
}

}  // namespace pagesim::report
