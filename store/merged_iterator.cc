// The public merged iterators: each forwards to the library's merge (store/merge_cursor.h).
#include "store/merged_iterator.h"

#include "store/merge_cursor.h"

namespace reftab {

struct MergedRefIterator::Impl {
  RefMergeCursor merge;
};

MergedRefIterator::MergedRefIterator(const std::vector<const TableReader*>& tables)
    : impl_(std::make_unique<Impl>(Impl{RefMergeCursor(tables)})) {}
MergedRefIterator::MergedRefIterator(const std::vector<const TableReader*>& tables,
                                     MergeOrderMemo* order)
    : MergedRefIterator(tables) {
  impl_->merge.set_merge_order(order);
}
MergedRefIterator::~MergedRefIterator() = default;
MergedRefIterator::MergedRefIterator(MergedRefIterator&&) noexcept = default;
MergedRefIterator& MergedRefIterator::operator=(MergedRefIterator&&) noexcept = default;

void MergedRefIterator::set_suppress_deletions(bool v) { impl_->merge.set_suppress_deletions(v); }
Status MergedRefIterator::SeekToFirst() { return impl_->merge.SeekToFirst(); }
Status MergedRefIterator::Seek(std::string_view name) { return impl_->merge.Seek(name); }
Status MergedRefIterator::SeekPrefix(std::string_view prefix) {
  return impl_->merge.SeekPrefix(prefix);
}
bool MergedRefIterator::Next(RefRecord* out) { return impl_->merge.Next(out); }
const Status& MergedRefIterator::status() const { return impl_->merge.status(); }

struct MergedLogIterator::Impl {
  LogMergeCursor merge;
};

MergedLogIterator::MergedLogIterator(const std::vector<const TableReader*>& tables)
    : impl_(std::make_unique<Impl>(Impl{LogMergeCursor(tables)})) {}
MergedLogIterator::~MergedLogIterator() = default;
MergedLogIterator::MergedLogIterator(MergedLogIterator&&) noexcept = default;
MergedLogIterator& MergedLogIterator::operator=(MergedLogIterator&&) noexcept = default;

void MergedLogIterator::set_suppress_deletions(bool v) { impl_->merge.set_suppress_deletions(v); }
Status MergedLogIterator::SeekToFirst() { return impl_->merge.SeekToFirst(); }
Status MergedLogIterator::Seek(std::string_view refname) { return impl_->merge.Seek(refname); }
bool MergedLogIterator::Next(LogRecord* out) { return impl_->merge.Next(out); }
const Status& MergedLogIterator::status() const { return impl_->merge.status(); }

}  // namespace reftab
