// The public single-table iterators (store/table_reader.h): each forwards to the cursor the
// library's own scans use (store/section_cursor.h).
#include "store/section_cursor.h"
#include "store/table_reader.h"

namespace reftab {

struct TableRefIterator::Impl {
  TableRefCursor cursor;
};

TableRefIterator::TableRefIterator(const TableReader* table)
    : impl_(std::make_unique<Impl>(Impl{TableRefCursor(table)})) {}
TableRefIterator::~TableRefIterator() = default;
TableRefIterator::TableRefIterator(TableRefIterator&&) noexcept = default;
TableRefIterator& TableRefIterator::operator=(TableRefIterator&&) noexcept = default;

Status TableRefIterator::SeekToFirst() { return impl_->cursor.SeekToFirst(); }
Status TableRefIterator::Seek(std::string_view name) { return impl_->cursor.Seek(name); }
bool TableRefIterator::Next(RefRecord* ref) { return impl_->cursor.Next(ref); }
const Status& TableRefIterator::status() const { return impl_->cursor.status(); }
bool TableRefIterator::NextKey() { return impl_->cursor.NextKey(); }
std::string_view TableRefIterator::key() const { return impl_->cursor.key(); }
uint8_t TableRefIterator::value_type() const { return impl_->cursor.value_type(); }
bool TableRefIterator::ReadValue(RefRecord* ref) { return impl_->cursor.ReadValue(ref); }

struct TableLogIterator::Impl {
  TableLogCursor cursor;
};

TableLogIterator::TableLogIterator(const TableReader* table)
    : impl_(std::make_unique<Impl>(Impl{TableLogCursor(table)})) {}
TableLogIterator::~TableLogIterator() = default;
TableLogIterator::TableLogIterator(TableLogIterator&&) noexcept = default;
TableLogIterator& TableLogIterator::operator=(TableLogIterator&&) noexcept = default;

Status TableLogIterator::SeekToFirst() { return impl_->cursor.SeekToFirst(); }
Status TableLogIterator::Seek(std::string_view refname) { return impl_->cursor.Seek(refname); }
Status TableLogIterator::SeekAt(std::string_view refname, uint64_t update_index) {
  return impl_->cursor.SeekAt(refname, update_index);
}
bool TableLogIterator::Next(LogRecord* log) { return impl_->cursor.Next(log); }
const Status& TableLogIterator::status() const { return impl_->cursor.status(); }
bool TableLogIterator::NextKey() { return impl_->cursor.NextKey(); }
std::string_view TableLogIterator::key() const { return impl_->cursor.key(); }
uint8_t TableLogIterator::value_type() const { return impl_->cursor.value_type(); }
bool TableLogIterator::ReadValue(LogRecord* log) { return impl_->cursor.ReadValue(log); }

}  // namespace reftab
