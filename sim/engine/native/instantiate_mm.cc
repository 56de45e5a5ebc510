// Mm<E> for the native engine, tracked and untracked.
#include "pagesim/engine/native/native.h"
#include "hugetlb-inl.h"

namespace pagesim::mm {
template class Mm<NativeCpu<false>>;
template class Mm<NativeCpu<true>>;
template class Hugetlb<NativeCpu<false>>;
template class Hugetlb<NativeCpu<true>>;
}  // namespace pagesim::mm
