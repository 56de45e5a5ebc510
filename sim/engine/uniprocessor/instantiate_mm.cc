// Mm<E> for the uniprocessor engine, tracked and untracked.
#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "hugetlb-inl.h"

namespace pagesim::mm {
template class Mm<UniprocessorExec<false>>;
template class Mm<UniprocessorExec<true>>;
template class Hugetlb<UniprocessorExec<false>>;
template class Hugetlb<UniprocessorExec<true>>;
}  // namespace pagesim::mm
