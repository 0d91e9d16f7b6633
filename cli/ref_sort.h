// for-each-ref's --sort keys: parsed as git parses them ("-" reverses, "version:"/"v:" compares
// as versions) and applied in git's order, the last key given deciding first, the refname
// breaking ties.
#ifndef REFTAB_CLI_REF_SORT_H_
#define REFTAB_CLI_REF_SORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "cli/ref_format.h"

namespace reftab::cli {

struct SortKey {
  int atom = 0;  // index into RefFormat::atoms
  bool reverse = false;
  bool version = false;
  bool ignore_case = false;
};

// Adds the atoms of `specs` (in the order given) to `format`; *keys gets them in the order
// they apply (the last spec first). False with git's message in *error.
bool ParseSortKeys(const std::vector<std::string>& specs, bool ignore_case, RefFormat* format,
                   std::vector<SortKey>* keys, FormatError* error);

// Whether the keys ask for plain name order, which the ref store gives without sorting.
bool IsNameOrder(const RefFormat& format, const std::vector<SortKey>& keys);

// git's versioncmp without versionsort.suffix: digit runs compare as numbers.
int VersionCompare(std::string_view a, std::string_view b);

// <0, 0, >0 as ref a sorts before, with, after ref b.
int CompareRefs(const std::vector<SortKey>& keys, const RefFormat& format,
                const std::vector<AtomValue>& a, std::string_view a_name,
                const std::vector<AtomValue>& b, std::string_view b_name);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_REF_SORT_H_
