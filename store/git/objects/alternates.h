// Internal (not installed): the object databases git searches for one repository — its own
// objects directory and those objects/info/alternates names, followed as git follows them.
#ifndef REFTAB_STORE_GIT_OBJECTS_ALTERNATES_H_
#define REFTAB_STORE_GIT_OBJECTS_ALTERNATES_H_

#include <string>
#include <vector>

namespace reftab {

// `objects_dir` first, then each alternate in the order the files list them (depth first,
// relative paths against the directory whose file names them, comments and blank lines
// skipped), nested at most 5 deep as in git, each database once (by real path; `objects_dir`
// keeps the name given). Directories that do not exist are left out, `objects_dir` too.
std::vector<std::string> ObjectDirectories(const std::string& objects_dir);

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_OBJECTS_ALTERNATES_H_
