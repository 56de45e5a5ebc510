// cached_requests(): the request streams of a trace file, kept for the process's later runs.
#include "request_cache.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "pagesim/error.h"
#include "pagesim/trace/ftrace.h"

namespace pagesim::workload::kmem {

std::shared_ptr<const KmemRequests> cached_requests(const std::string& path, unsigned replicate, uint64_t max_requests) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read the trace: {}", path, ec.message()));
  const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
  using Key = std::tuple<std::string, uintmax_t, int64_t, unsigned, uint64_t>;
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<const KmemRequests>> cache;
  const Key key{path, size, static_cast<int64_t>(mtime), replicate, max_requests};
  std::lock_guard<std::mutex> lock(mu);  // held while reading: the other runs wait for this read
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto r = std::make_shared<const KmemRequests>(kmem_requests(trace::read_ftrace(path), replicate, max_requests));
  cache[key] = r;
  return r;
}

}  // namespace pagesim::workload::kmem
