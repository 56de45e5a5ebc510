#include "pagesim/vt/live_store_loops.h"

namespace pagesim::vt {

LiveStoreLoops::LiveStoreLoops(const MachineModel& m, unsigned nr_tasks)
    : m_(m), tasks_(nr_tasks), node_(nr_tasks, -1) {}

double LiveStoreLoops::per_store_ps(unsigned task, const std::vector<uint64_t>& pages_per_node, unsigned node,
                                    double cpu_share) {
  StoreLoopTask& t = tasks_.at(task);
  if (node_[task] != static_cast<int>(node) || t.cpu_share != cpu_share || t.pages_per_node != pages_per_node) {
    node_[task] = static_cast<int>(node);
    t.stores = 1;  // the solve needs rates, not counts
    t.pages_per_node = pages_per_node;
    t.residency.assign(m_.geometry.sockets, 0);
    t.residency.at(node) = 1;
    t.cpu_share = cpu_share;
    solved_.reset();
  }
  if (!solved_) {
    solved_ = store_loop(m_, tasks_);
    solves_++;
  }
  return store_ps_on(m_, *solved_, pages_per_node, node);
}

void LiveStoreLoops::leave(unsigned task) {
  if (node_.at(task) < 0) return;
  node_[task] = -1;
  tasks_[task] = StoreLoopTask{};
  solved_.reset();
}

}  // namespace pagesim::vt
