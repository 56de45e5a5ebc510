// Mm<E> for the uniprocessor engine, tracked and untracked.
#include "pagesim/exec/uniprocessor.h"
#include "rmqueue-inl.h"

namespace pagesim::mm {
template class Mm<UniprocessorExec<false>>;
template class Mm<UniprocessorExec<true>>;
}  // namespace pagesim::mm
