// What git prints while it reads an object name (store/git/refs/object_name.h), the same for
// every command that takes one.
#ifndef REFTAB_CLI_OBJECT_NAME_REPORT_H_
#define REFTAB_CLI_OBJECT_NAME_REPORT_H_

#include "store/git/refs/ref_dwim.h"

namespace reftab::cli {

// Prints `r`'s messages in git's order: warnings, the advice that follows them, errors,
// hints.
void ReportObjectName(const ObjectNameResult& r);

// When git stops on the name (r.dies): prints its fatal line, if it has one, and returns git's
// exit status (128). -1 otherwise.
int ObjectNameDied(const ObjectNameResult& r);

}  // namespace reftab::cli

#endif  // REFTAB_CLI_OBJECT_NAME_REPORT_H_
