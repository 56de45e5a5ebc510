// Mm<E> for the native engine, tracked and untracked.
#include "pagesim/exec/native.h"
#include "rmqueue-inl.h"

namespace pagesim::mm {
template class Mm<NativeCpu<false>>;
template class Mm<NativeCpu<true>>;
}  // namespace pagesim::mm
