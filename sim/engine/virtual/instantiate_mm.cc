// Mm<E> and Hugetlb<E> for the virtual-time engine.
#include "pagesim/engine/virtual/virtual.h"
#include "hugetlb-inl.h"

namespace pagesim::mm {
template class Mm<VirtualCpu>;
template class Hugetlb<VirtualCpu>;
}  // namespace pagesim::mm
