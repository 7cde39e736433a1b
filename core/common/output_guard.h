#pragma once
// Never overwrite an input: every command that writes files checks, before it reads or computes
// anything, that none of the files it will write is one of the files it reads. "The same file"
// means the same path, a symbolic link to it, or another hard link to it (device and inode are
// compared, so relative paths, "..", links and bind mounts cannot hide it).
#include <string>
#include <vector>

#include "common/status.h"

namespace gs {

// True when both paths exist and name the same file.
bool sameFile(const std::string& a, const std::string& b);

// InvalidArgument naming the output and the input when one of `outputs` is the same file as one of
// `inputs`; ok otherwise. Outputs that do not exist yet cannot be an input; empty paths are skipped.
Status checkOutputsAreNotInputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

}  // namespace gs
