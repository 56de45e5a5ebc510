// replay(): a machine sized from the zoneinfo, its pcp lists set as the trace began, the
// trace's requests fed to it on their CPUs, the model's tracepoints counted like the kernel's.
#include "pagesim/replay/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/error.h"
#include "pagesim/mm/page_alloc.h"
#include "input_checks.h"
#include "pcp_lists.h"

namespace pagesim::replay {

using trace::EventKind;

std::string_view anchor_name(Anchor a) {
  switch (a) {
    case Anchor::automatic: return "auto";
    case Anchor::start: return "start";
    case Anchor::end: return "end";
    case Anchor::fit: return "fit";
    case Anchor::min: return "min";
  }
  return "?";
}

std::string_view decay_name(Decay d) {
  switch (d) {
    case Decay::automatic: return "auto";
    case Decay::trace: return "trace";
    case Decay::timer: return "timer";
    case Decay::off: return "off";
  }
  return "?";
}

std::string_view kind_name(Kind k) {
  static constexpr std::string_view kNames[] = {"alloc", "free", "refill", "buddy", "drain"};
  return kNames[static_cast<size_t>(k)];
}

uint64_t Counts::total(Kind k) const {
  uint64_t s = 0;
  for (uint64_t v : n[static_cast<size_t>(k)]) s += v;
  return s;
}

namespace {

// The table's kind of an event, in the kernel's units. A zone_locked block is a refill when
// 6.x would print percpu_refill=1 (a pcp order from a pcp migratetype's list), whatever the
// kernel that wrote it: 5.x printed order == 0.
std::optional<Kind> classify(const trace::Event& e) {
  switch (e.kind) {
    case EventKind::mm_page_alloc: return e.failed ? std::nullopt : std::optional(Kind::alloc);
    case EventKind::mm_page_free: return Kind::free;
    case EventKind::mm_page_free_batched: return std::nullopt;
    case EventKind::mm_page_alloc_zone_locked:
      return detail::pcp_order(e.order) && e.migratetype >= 0 && e.migratetype <= 2 ? Kind::refill : Kind::buddy;
    case EventKind::mm_page_pcpu_drain: return Kind::drain;
    case EventKind::vmstat_update: return std::nullopt;
  }
  return std::nullopt;
}

void count(Counts& c, const trace::Event& e) {
  if (e.order >= kOrders) return;
  if (const auto k = classify(e)) c.at(*k, e.order)++;
}

mm::zone_type zone_type_of(const std::string& name) {
  if (name == "DMA") return mm::ZONE_DMA;
  if (name == "DMA32") return mm::ZONE_DMA32;
  if (name == "Movable") return mm::ZONE_MOVABLE;
  return mm::ZONE_NORMAL;
}

// Without a zoneinfo: one Normal zone over the trace's pfns, no pagesets (the model's own).
ZoneInfoFile zoneinfo_from_trace(const trace::Trace& t) {
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (const trace::Event& e : t.events)
    if (!e.failed) lo = std::min(lo, e.pfn), hi = std::max(hi, e.pfn + (uint64_t{1} << std::min<unsigned>(e.order, 10)));
  if (lo > hi) throw InputError(fmt::format("{}: no page events to replay", t.source));
  ZoneInfo z;
  z.name = "Normal";
  z.start_pfn = lo & ~uint64_t{1023};
  z.spanned = z.present = z.managed = ((hi + 1023) & ~uint64_t{1023}) - z.start_pfn;
  z.free = z.managed;
  return ZoneInfoFile{"(the trace's pfn range)", {z}};
}

// The modelled pindex of a 6.x-numbered list.
unsigned model_pindex(const mm::KernelConfig& cfg, unsigned list) {
  const unsigned order = detail::list_order(list), mt = detail::list_mt(list);
  if (cfg.behaviour.thp_pcp_lists_by_movability || order <= 3) return list;
  return mm::order_to_pindex(mt, order);
}

// The model's tracepoints, as trace events at the replay's current time.
class Recorder final : public mm::TraceSink {
 public:
  // pfn_offset: the kernel's pfn of the model's pfn 0, so that an emitted trace lies in the
  // zoneinfo's pfn range and replays with it.
  Recorder(Counts& counts, trace::Trace* keep, int64_t pfn_offset) : counts_(counts), keep_(keep), pfn_offset_(pfn_offset) {}
  double now = 0;
  // The model's vmstat_update, so that an emitted trace replays with `--decay trace`.
  void mark_vmstat_update(unsigned cpu) {
    if (keep_) keep_->events.push_back(trace::Event{.ts = now, .cpu = cpu, .kind = EventKind::vmstat_update});
  }
  void emit(const mm::Tracepoint& tp) override {
    trace::Event e;
    e.ts = now;
    e.cpu = tp.cpu;
    e.kind = static_cast<EventKind>(tp.id);  // the same five, in the same order
    e.order = tp.order;
    e.migratetype = tp.migratetype;
    e.percpu_refill = tp.percpu_refill;
    e.failed = tp.pfn == mm::kNoPfn;
    e.pfn = e.failed ? trace::kNoPfn : static_cast<uint64_t>(static_cast<int64_t>(tp.pfn) + pfn_offset_);
    if (e.kind == EventKind::mm_page_free || e.kind == EventKind::mm_page_free_batched) e.migratetype = -1;
    count(counts_, e);
    if (!keep_) return;
    if (e.kind == EventKind::mm_page_alloc) e.gfp = intern(trace::gfp_to_text(tp.gfp));
    keep_->events.push_back(e);
  }

 private:
  uint16_t intern(const std::string& text) {
    auto& v = keep_->gfp_texts;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == text) return static_cast<uint16_t>(i);
    v.push_back(text);
    return static_cast<uint16_t>(v.size() - 1);
  }
  Counts& counts_;
  trace::Trace* keep_;
  int64_t pfn_offset_;
};

struct Snapshot {  // a CPU's pageset in the zoneinfo
  long count = 0, high = 0, high_min = -1, high_max = -1, batch = 0;
  bool known = false;
};

// What replay() reads: the trace, the zone it replays, which events fall in that zone, and how
// its frees pair with its allocations.
struct Input {
  const trace::Trace& t;
  const ZoneInfoFile& zi;
  const ZoneInfo& zinfo;
  unsigned ncpu;
  std::vector<bool> in_zone;
  detail::Pairing pairing;
};

using ListCounts = std::vector<std::array<long, detail::kLists>>;  // per CPU and list, in blocks

// The zone holding most of the trace's blocks is the one replayed.
const ZoneInfo& replayed_zone(const trace::Trace& t, const ZoneInfoFile& zi) {
  std::vector<uint64_t> hits(zi.zones.size());
  for (const trace::Event& e : t.events)
    if (!e.failed)
      if (const ZoneInfo* z = zi.zone_of(e.pfn)) hits[static_cast<size_t>(z - zi.zones.data())]++;
  const size_t zidx = static_cast<size_t>(std::max_element(hits.begin(), hits.end()) - hits.begin());
  if (hits.empty() || hits[zidx] == 0)
    throw InputError(fmt::format("{}: none of the trace's pages lies in a zone of {}", t.source, zi.source));
  return zi.zones[zidx];
}

// The result's header, and the kernel's answer counted over the replayed zone's events.
Input read_input(const trace::Trace& t, const ZoneInfoFile& zi, const ZoneInfo& zinfo, const ReplayOptions& o,
                 ReplayResult& r) {
  r.preset = o.preset;
  r.decay = o.decay;
  if (r.decay == Decay::automatic)
    r.decay = std::any_of(t.events.begin(), t.events.end(), [](const trace::Event& e) { return e.kind == EventKind::vmstat_update; })
                  ? Decay::trace
                  : Decay::timer;
  r.zone = zinfo.name;
  r.managed_pages = zinfo.managed;
  r.nr_cpus = std::max(t.nr_cpus, t.max_cpu() + 1);
  for (const PagesetInfo& p : zinfo.pagesets) r.nr_cpus = std::max(r.nr_cpus, p.cpu + 1);

  std::vector<bool> in_zone(t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    const trace::Event& e = t.events[i];
    in_zone[i] = !e.failed && zinfo.spans(e.pfn);
    if (e.failed) r.failed_allocs++;
    else if (!in_zone[i]) r.other_zone_events++;
    if (in_zone[i]) count(r.kernel, e);
  }
  detail::Pairing pairing = detail::pair_events(t, in_zone);
  return Input{t, zi, zinfo, r.nr_cpus, std::move(in_zone), std::move(pairing)};
}

// The anchor `auto` resolves to: the first of start, end and fit whose counts the events allow,
// or min without counts.
void choose_anchor(bool have_counts, const std::function<bool(Anchor)>& allowed, ReplayResult& r) {
  if (!have_counts) {
    r.anchor = Anchor::min;
    r.anchor_reason = "the zoneinfo gives no pcp counts";
  } else if (allowed(Anchor::start)) {
    r.anchor = Anchor::start;
    r.anchor_reason = "the zoneinfo's counts fit the events at the first event";
  } else if (allowed(Anchor::end)) {
    r.anchor = Anchor::end;
    r.anchor_reason = "the zoneinfo's counts fit the events at the last event, not at the first";
  } else {
    r.anchor = Anchor::fit;
    r.anchor_reason = "the zoneinfo's counts fit the events at neither end: each CPU's is moved into the range they allow";
  }
}

// Per CPU and list, the blocks at the first event: at least what the events take out, and
// order-0 movable blocks for the rest of the CPU's count at the anchor (want(cpu), none for min).
ListCounts initial_lists(const detail::KernelLists& history, unsigned ncpu, const std::function<long(unsigned)>& want,
                         ReplayResult& r) {
  ListCounts initial(ncpu);
  r.initial_pcp_count.assign(ncpu, 0);
  for (unsigned c = 0; c < ncpu; ++c) {
    const detail::ListHistory& h = history.cpu(c);
    long pages = 0;
    for (unsigned l = 0; l < detail::kLists; ++l) {
      initial[c][l] = -h.min_blocks[l];
      pages += initial[c][l] << detail::list_order(l);
    }
    const long w = r.anchor == Anchor::min ? pages : want(c);
    if (w > pages) initial[c][detail::list_of(1, 0)] += w - pages;
    r.initial_pcp_count[c] = std::max(w, pages);
  }
  return initial;
}

// --- where the pcp lists stood: the anchor ---
// Sets r.anchor and r.initial_pcp_count; returns the lists at the first event.
ListCounts anchor_lists(const Input& in, const std::vector<Snapshot>& snap, Anchor asked, ReplayResult& r) {
  const unsigned ncpu = in.ncpu;
  detail::KernelLists history(ncpu, in.t, in.pairing);
  for (size_t i = 0; i < in.t.events.size(); ++i) history.apply(i);
  const bool have_counts = std::all_of(snap.begin(), snap.end(), [](const Snapshot& s) { return s.known; });
  // What the events allow at the first event, per CPU: no list below zero (lo), the count never
  // above high_max (hi).
  std::vector<long> lo(ncpu), hi(ncpu);
  for (unsigned c = 0; c < ncpu; ++c) {
    const detail::ListHistory& h = history.cpu(c);
    for (unsigned l = 0; l < detail::kLists; ++l) lo[c] += -h.min_blocks[l] << detail::list_order(l);
    lo[c] = std::max(lo[c], -h.min_pages);
    hi[c] = snap[c].known ? (snap[c].high_max >= 0 ? snap[c].high_max : snap[c].high) - h.max_pages : LONG_MAX;
  }
  auto snapshot_at = [&](Anchor a, unsigned c) {
    const long at_start = a == Anchor::end ? snap[c].count - history.cpu(c).pages : snap[c].count;
    return a == Anchor::fit ? std::clamp(at_start, lo[c], std::max(lo[c], hi[c])) : at_start;
  };
  auto allowed = [&](Anchor a) {
    for (unsigned c = 0; c < ncpu; ++c)
      if (snapshot_at(a, c) < lo[c] || snapshot_at(a, c) > hi[c]) return false;
    return true;
  };
  r.anchor = asked;
  r.anchor_reason = "as asked";
  if ((r.anchor == Anchor::start || r.anchor == Anchor::end || r.anchor == Anchor::fit) && !have_counts)
    throw InputError(fmt::format("--anchor {}: {} gives no pcp count for every CPU", anchor_name(r.anchor), in.zi.source));
  if (r.anchor == Anchor::automatic) choose_anchor(have_counts, allowed, r);
  return initial_lists(history, ncpu, [&](unsigned c) { return snapshot_at(r.anchor, c); }, r);
}

mm::MachineSpec machine_spec(const ZoneInfo& zinfo, unsigned ncpu) {
  mm::MachineSpec spec;
  spec.nodes.push_back(mm::NodeSpec{ncpu, {mm::ZoneSpec{zone_type_of(zinfo.name), (zinfo.managed + 1023) & ~uint64_t{1023}}}});
  return spec;
}

// --- the machine ---
// A machine sized from the zoneinfo, its free pages and pcp lists as they stood at the first
// event, and the blocks freed in the trace but allocated before it.
struct Model {
  Model(const Input& in, const mm::KernelConfig& cfg, const std::vector<Snapshot>& snap, const ListCounts& initial,
        ReplayResult& r);

  unsigned ncpu;
  mm::Machine m;
  mm::Zone& zone;
  UniprocessorExec<false> ex{m, 0};
  mm::Mm<UniprocessorExec<false>> mmu{m, ex};
  // Blocks freed in the trace but allocated before it, per order and migratetype.
  std::array<std::array<std::vector<mm::Page*>, 3>, kOrders> pool;

 private:
  bool autotuned() const { return m.config().behaviour.pcp_high_autotune; }
  void drain_all() {
    for (unsigned c = 0; c < ncpu; ++c) {
      ex.set_cpu(c);
      mmu.drain_local_pages(&zone);
    }
  }
  void set_zone(const ZoneInfo& zinfo, const std::vector<Snapshot>& snap);
  void allocate_pretrace(const detail::Pairing& pairing);
  void fill_zone(const ZoneInfo& zinfo, const ReplayResult& r);
  void fill_pcp_lists(const ListCounts& initial);
  void reset_tuning(const std::vector<Snapshot>& snap);
};

Model::Model(const Input& in, const mm::KernelConfig& cfg, const std::vector<Snapshot>& snap, const ListCounts& initial,
             ReplayResult& r)
    : ncpu(in.ncpu), m(machine_spec(in.zinfo, in.ncpu), cfg, mm::HostMemory{}), zone(m.node(0).zones[zone_type_of(in.zinfo.name)]) {
  set_zone(in.zinfo, snap);
  allocate_pretrace(in.pairing);
  fill_zone(in.zinfo, r);
  fill_pcp_lists(initial);
  reset_tuning(snap);
  for (unsigned c = 0; c < ncpu; ++c) {
    const mm::PerCpuPages& pcp = zone.pcp(c);
    r.high.push_back(pcp.high);
    r.high_min.push_back(autotuned() ? pcp.high_min : pcp.high);
    r.high_max.push_back(autotuned() ? pcp.high_max : pcp.high);
  }
  r.batch = zone.pcp(0).batch;
}

// The zoneinfo's watermarks and pagesets.
void Model::set_zone(const ZoneInfo& zinfo, const std::vector<Snapshot>& snap) {
  if (zinfo.min || zinfo.low || zinfo.high) {
    zone._watermark[mm::WMARK_MIN] = zinfo.min;
    zone._watermark[mm::WMARK_LOW] = zinfo.low;
    zone._watermark[mm::WMARK_HIGH] = zinfo.high;
    zone.watermark_boost = 0;
  }
  for (unsigned c = 0; c < ncpu; ++c)
    if (snap[c].known) {
      const long lo = snap[c].high_min >= 0 ? snap[c].high_min : snap[c].high;
      const long hi = snap[c].high_max >= 0 ? snap[c].high_max : lo;
      m.set_pageset(zone.pcp(c), static_cast<int>(lo), static_cast<int>(hi), static_cast<int>(snap[c].batch));
    }
}

// Blocks freed in the trace but allocated before it: allocate them now, each of the
// migratetype its free goes to, so that the model frees it to the same list.
void Model::allocate_pretrace(const detail::Pairing& pairing) {
  ex.set_cpu(0);
  for (unsigned ord = 0; ord < kOrders; ++ord)
    for (unsigned mt = 0; mt < 3; ++mt) {
      const mm::gfp_t type = mt == 1 ? mm::__GFP_MOVABLE : mt == 2 ? mm::__GFP_RECLAIMABLE : 0;
      for (uint64_t k = 0; k < pairing.pretrace[ord][mt]; ++k)
        if (mm::Page* p = mmu.__alloc_pages(mm::GFP_KERNEL | type | (ord ? mm::__GFP_COMP : 0), ord, 0)) pool[ord][mt].push_back(p);
    }
  drain_all();
}

// Fill the zone down to its free pages at the first event, plus what the pcp lists will take.
void Model::fill_zone(const ZoneInfo& zinfo, const ReplayResult& r) {
  long free_at_start = static_cast<long>(zinfo.free);
  if (r.anchor == Anchor::end) {  // buddy's outflow during the trace, from its events
    for (unsigned ord = 0; ord < kOrders; ++ord) {
      free_at_start += static_cast<long>(r.kernel.at(Kind::refill, ord) + r.kernel.at(Kind::buddy, ord)) << ord;
      free_at_start -= static_cast<long>(r.kernel.at(Kind::drain, ord)) << ord;
      if (!detail::pcp_order(ord)) free_at_start -= static_cast<long>(r.kernel.at(Kind::free, ord)) << ord;
    }
  }
  long on_pcp = 0;
  for (long v : r.initial_pcp_count) on_pcp += v;
  const uint64_t target = static_cast<uint64_t>(std::max<long>(0, free_at_start + on_pcp));
  for (int pass = 0; pass < 3 && zone.free_area_pages() > target; ++pass) {
    for (int ord = mm::MAX_ORDER - 1; ord >= 0; --ord)
      while (zone.free_area_pages() >= target + (uint64_t{1} << ord))
        if (!mmu.__alloc_pages(mm::GFP_HIGHUSER_MOVABLE | (ord ? mm::__GFP_COMP : 0), static_cast<unsigned>(ord), 0)) break;
    drain_all();
  }
}

// The pcp lists as they stood.
void Model::fill_pcp_lists(const ListCounts& initial) {
  for (unsigned c = 0; c < ncpu; ++c) {
    ex.set_cpu(c);
    mm::PerCpuPages& pcp = zone.pcp(c);
    for (unsigned l = 0; l < detail::kLists; ++l) {
      if (initial[c][l] <= 0) continue;
      const unsigned ord = detail::list_order(l);
      IrqFlags f = ex.local_irq_save(Site::rmqueue_pcplist);
      const int got = mmu.rmqueue_bulk(zone, ord, static_cast<unsigned long>(initial[c][l]), pcp.lists[model_pindex(m.config(), l)],
                                       detail::list_mt(l), mm::ALLOC_WMARK_MIN);
      pcp.count += got << ord;
      ex.local_irq_restore(f, Site::rmqueue_pcplist);
    }
  }
}

// Set-up's own allocations tune pcp->high and the batch scaling: the state at the first event
// is the snapshot's high (when auto-tuned, at whichever end it was taken), and no scaling,
// which no zoneinfo shows.
void Model::reset_tuning(const std::vector<Snapshot>& snap) {
  for (unsigned c = 0; c < ncpu; ++c) {
    mm::PerCpuPages& pcp = zone.pcp(c);
    if (autotuned()) pcp.high = snap[c].known ? static_cast<int>(snap[c].high) : pcp.high_min;
    pcp.alloc_factor = 0;
    pcp.free_count = 0;
    pcp.free_factor = 0;
    pcp.flags &= static_cast<uint8_t>(~mm::PCPF_PREV_FREE_HIGH_ORDER);
  }
}

// --- the replay ---
// The trace's requests fed to the model on their CPUs, with 6.x's decay of pcp->high where
// vmstat_update would run it.
class Feeder {
 public:
  Feeder(const Input& in, Model& model, ReplayResult& r)
      : in_(in), md_(model), r_(r), lists_(in.ncpu, in.t, in.pairing),
        decay_due_(in.ncpu, in.t.events.empty() ? 0 : std::floor(in.t.events.front().ts) + 1) {}
  void event(size_t i, Recorder& rec);

 private:
  void decay(const trace::Event& e, Recorder& rec);
  void alloc(const trace::Event& e);
  void free(size_t i);
  void free_batched(size_t i);
  void free_block(mm::Page* p, unsigned ord, bool folio) {
    if (folio) md_.mmu.free_unref_folio(p, ord);
    else md_.mmu.__free_pages(p, ord);
    r_.frees++;
  }

  const Input& in_;
  Model& md_;
  ReplayResult& r_;
  absl::flat_hash_map<uint64_t, mm::Page*> live_;     // kernel pfn -> the model's block
  absl::flat_hash_map<uint64_t, mm::Page*> batched_;  // freed in pass 1 of a folio batch
  absl::flat_hash_map<uint64_t, bool> model_failed_;
  detail::KernelLists lists_;
  // vmstat_update, where 6.x decays pcp->high, is a deferrable per-CPU work armed with
  // round_jiffies_relative(HZ): due at whole seconds, run when its CPU is next awake.
  std::vector<double> decay_due_;
};

void Feeder::event(size_t i, Recorder& rec) {
  const trace::Event& e = in_.t.events[i];
  rec.now = e.ts;
  const bool vmstat_now = r_.decay == Decay::trace ? e.kind == EventKind::vmstat_update
                                                   : r_.decay == Decay::timer && e.cpu < in_.ncpu && e.ts >= decay_due_[e.cpu];
  if (vmstat_now && md_.m.config().behaviour.pcp_high_autotune && e.cpu < in_.ncpu) decay(e, rec);
  const int moved = lists_.apply(i);
  if (in_.in_zone[i] && e.cpu < in_.ncpu) {
    md_.ex.set_cpu(e.cpu);
    switch (e.kind) {
      case EventKind::mm_page_alloc: alloc(e); break;
      case EventKind::mm_page_free: free(i); break;
      case EventKind::mm_page_free_batched: free_batched(i); break;
      default: break;  // the kernel's answer, counted above
    }
  }
  if (moved == static_cast<int>(r_.series_cpu) || (in_.in_zone[i] && e.cpu == r_.series_cpu))
    r_.series.push_back({e.ts, r_.initial_pcp_count[r_.series_cpu] + lists_.cpu(r_.series_cpu).pages,
                         md_.zone.pcp(r_.series_cpu).count});
}

void Feeder::decay(const trace::Event& e, Recorder& rec) {
  md_.ex.set_cpu(e.cpu);
  rec.mark_vmstat_update(e.cpu);
  md_.mmu.decay_pcp_high(md_.zone);
  r_.decays++;
  decay_due_[e.cpu] = std::round(e.ts) + 1;
}

void Feeder::alloc(const trace::Event& e) {
  if (mm::Page* p = md_.mmu.__alloc_pages(trace::alloc_gfp(in_.t, e), e.order, 0)) {
    live_[e.pfn] = p;
    model_failed_.erase(e.pfn);
  } else {
    r_.model_alloc_failures++;
    model_failed_[e.pfn] = true;
  }
  r_.allocs++;
}

void Feeder::free(size_t i) {
  const trace::Event& e = in_.t.events[i];
  mm::Page* p = nullptr;
  if (in_.pairing.pretrace_free[i]) {
    auto& blocks = md_.pool[e.order][static_cast<size_t>(in_.pairing.free_mt[i])];
    if (!blocks.empty()) p = blocks.back(), blocks.pop_back();
    r_.pretrace_frees++;
  } else if (auto it = live_.find(e.pfn); it != live_.end()) {
    p = it->second;
    live_.erase(it);
  }
  if (!p) return;  // the model could not allocate it
  if (in_.pairing.deferred[i]) batched_[e.pfn] = p;
  else free_block(p, e.order, false);
}

void Feeder::free_batched(size_t i) {
  const trace::Event& e = in_.t.events[i];
  if (in_.pairing.free_of_batched[i] < 0) return;
  if (auto it = batched_.find(e.pfn); it != batched_.end()) {
    free_block(it->second, in_.t.events[static_cast<size_t>(in_.pairing.free_of_batched[i])].order, true);
    batched_.erase(it);
  }
}

unsigned series_cpu(const Input& in, const ReplayOptions& o) {
  std::vector<uint64_t> busy(in.ncpu);
  for (size_t i = 0; i < in.t.events.size(); ++i)
    if (in.in_zone[i] && in.t.events[i].cpu < in.ncpu) busy[in.t.events[i].cpu]++;
  const unsigned cpu = o.series_cpu >= 0 ? static_cast<unsigned>(o.series_cpu)
                                         : static_cast<unsigned>(std::max_element(busy.begin(), busy.end()) - busy.begin());
  if (cpu >= in.ncpu) throw InputError(fmt::format("--cpu {}: the trace has {} CPUs", cpu, in.ncpu));
  return cpu;
}

void feed(const Input& in, Model& model, const ReplayOptions& o, ReplayResult& r) {
  if (o.keep_model_trace) {
    r.model_trace.source = "pagesim replay";
    r.model_trace.nr_cpus = in.ncpu;
  }
  Recorder rec(r.model, o.keep_model_trace ? &r.model_trace : nullptr,
               static_cast<int64_t>(in.zinfo.start_pfn) - static_cast<int64_t>(model.zone.zone_start_pfn));
  model.m.set_tracer(&rec);
  r.series_cpu = series_cpu(in, o);
  Feeder feeder(in, model, r);
  for (size_t i = 0; i < in.t.events.size(); ++i) feeder.event(i, rec);
  model.m.set_tracer(nullptr);
}

}  // namespace

ReplayResult replay(const trace::Trace& t, const ZoneInfoFile& zi_in, const ReplayOptions& o) {
  std::optional<mm::KernelConfig> preset = mm::preset_config(o.preset);
  if (!preset) throw InputError(fmt::format("--profile: '{}' is not a preset", o.preset));
  mm::KernelConfig cfg = *preset;
  cfg.memmap_reserved = false;  // managed pages as the zoneinfo gives them
  cfg.deferred_struct_page_init = false;

  detail::check_input(t, zi_in);
  const ZoneInfoFile zi = zi_in.zones.empty() ? zoneinfo_from_trace(t) : zi_in;
  const ZoneInfo& zinfo = replayed_zone(t, zi);
  ReplayResult r;
  const Input in = read_input(t, zi, zinfo, o, r);
  std::vector<Snapshot> snap(in.ncpu);
  for (unsigned c = 0; c < in.ncpu; ++c)
    if (const PagesetInfo* p = zinfo.pageset(c)) snap[c] = {p->count, p->high, p->high_min, p->high_max, p->batch, true};
  const ListCounts initial = anchor_lists(in, snap, o.anchor, r);
  Model model(in, cfg, snap, initial, r);
  feed(in, model, o, r);
  return r;
}

}  // namespace pagesim::replay
