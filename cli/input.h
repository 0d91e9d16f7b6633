// Buffered reading of standard input by delimiter, for the commands that take records on
// stdin (write-table, update-ref --stdin). Plain read(2) into a 64 KiB buffer: iostreams
// would cost a static initializer in every run of the command (measurable for a command
// that otherwise takes a millisecond) and a locked character-at-a-time getline.
#ifndef REFTAB_CLI_INPUT_H_
#define REFTAB_CLI_INPUT_H_

#include <string>
#include <vector>

namespace reftab::cli {

class InputReader {
 public:
  explicit InputReader(int fd = 0) : fd_(fd), buf_(1 << 16) {}

  // Reads up to the next `delim` (not included) into *out. False at the end of input with
  // nothing read; a last record without a delimiter is returned. `failed()` tells a read
  // error from the end.
  bool Next(char delim, std::string* out);
  bool failed() const { return failed_; }
  // Whether the record Next() returned last ended at the end of input, not at a delimiter.
  bool last_line_unterminated() const { return unterminated_; }

 private:
  bool Fill();

  int fd_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false, failed_ = false, unterminated_ = false;
};

}  // namespace reftab::cli

#endif  // REFTAB_CLI_INPUT_H_
