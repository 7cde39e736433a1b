#include "screen/slurm.h"

#include <dirent.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "screen/layout.h"
#include "screen/plan.h"
#include "screen/receipt.h"

extern char** environ;

namespace gs::screen {
namespace {

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string joinQuoted(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += " " + shellQuote(a);
  return out;
}

// DIR/slurm/<n>: one directory per submission, numbered.
std::string submissionDir(const std::string& dir) {
  makeDirs(dir + "/slurm");
  for (int n = 1;; ++n) {
    const std::string path = dir + "/slurm/" + std::to_string(n);
    if (::access(path.c_str(), F_OK) != 0) {
      makeDirs(path);
      return path;
    }
  }
}

Status writeScript(const std::string& path, const std::string& body) {
  std::ofstream out(path, std::ios::trunc);
  out << "#!/bin/bash\n" << body;
  out.close();
  if (!out) return {StatusCode::IoError, "cannot write " + path};
  ::chmod(path.c_str(), 0755);
  return Status::ok();
}

Result<std::string> sbatch(const std::vector<std::string>& args, const std::string& script) {
  std::vector<std::string> argv{"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(script);
  int code = 0;
  auto out = runCapture(argv, &code);
  if (!out.isOk()) return out.status();
  std::string id = out.value().substr(0, out.value().find_first_of(";\n"));
  if (code != 0 || id.empty())
    return Status{StatusCode::IoError, "sbatch failed (exit " + std::to_string(code) + "): " + out.value()};
  return id;
}

std::vector<int> pendingShards(const std::string& dir, const std::string& plan_id, const Plan& plan) {
  std::vector<int> out;
  for (const auto& s : plan.shards)
    if (!completeReceipt(dir, plan_id, s.id).isOk()) out.push_back(s.id);
  return out;
}

int defaultShardsPerTask(const Plan& plan) {
  const double per_shard = plan.shard_seconds > 0 ? plan.shard_seconds : 300;
  return std::max(1, static_cast<int>(std::lround(1800.0 / per_shard)));
}

}  // namespace

Result<std::string> runCapture(const std::vector<std::string>& args, int* exit_code) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) return Status{StatusCode::IoError, "pipe failed"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipefd[0]);
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    return Status{StatusCode::IoError, "cannot run " + args[0] + ": " + std::strerror(rc)};
  }
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return out;
}

int maxArraySize() {
  int code = 0;
  auto out = runCapture({"scontrol", "show", "config"}, &code);
  if (!out.isOk() || code != 0) return 1001;
  std::istringstream in(out.value());
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("MaxArraySize", 0) == 0) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) return std::max(1, std::atoi(line.c_str() + eq + 1));
    }
  return 1001;
}

namespace {

std::vector<std::string> blocksOf(const std::vector<int>& shards, int per_task) {
  std::vector<std::string> blocks;
  for (size_t i = 0; i < shards.size(); i += static_cast<size_t>(per_task)) {
    std::string line;
    for (size_t j = i; j < std::min(shards.size(), i + static_cast<size_t>(per_task)); ++j)
      line += (j > i ? "," : "") + std::to_string(shards[j]);
    blocks.push_back(line);
  }
  return blocks;
}

// One array per MaxArraySize blocks; each task runs the shards on its line of the block file.
Status submitArrays(const SubmitOptions& o, const std::string& sub, const std::vector<std::string>& blocks,
                    SubmitResult& result) {
  const size_t max_tasks = static_cast<size_t>(o.dry_run ? 1001 : maxArraySize());
  for (size_t a = 0; a * max_tasks < blocks.size(); ++a) {
    const std::string base = sub + "/array-" + std::to_string(a);
    const size_t first = a * max_tasks, count = std::min(blocks.size(), first + max_tasks) - first;
    std::ofstream list(base + ".blocks");
    for (size_t b = first; b < first + count; ++b) list << blocks[b] << "\n";
    list.close();
    const std::string body = "#SBATCH --job-name=gs-screen\n#SBATCH --output=" + sub +
                             "/%A_%a.out\n"
                             "#SBATCH --signal=B:USR1@120\n"
                             "exec" +
                             joinQuoted({o.cli, "screen", "run", o.dir, "--slurm-array", "--blocks", base + ".blocks",
                                         "--local", std::to_string(o.local)}) +
                             "\n";
    if (Status s = writeScript(base + ".sh", body); !s.isOk()) return s;
    result.scripts.push_back(base + ".sh");
    if (o.dry_run) continue;
    std::vector<std::string> args{"--array=0-" + std::to_string(count - 1) +
                                  (o.throttle > 0 ? "%" + std::to_string(o.throttle) : "")};
    args.insert(args.end(), o.sbatch_args.begin(), o.sbatch_args.end());
    auto id = sbatch(args, base + ".sh");
    if (!id.isOk()) return id.status();
    result.array_jobs.push_back(id.value());
  }
  return Status::ok();
}

// `screen merge` after every array (afterany: a merge with shards missing says which).
Status submitMerge(const SubmitOptions& o, const std::string& sub, SubmitResult& result) {
  std::vector<std::string> merge{o.cli, "screen", "merge", o.dir};
  merge.insert(merge.end(), o.merge_args.begin(), o.merge_args.end());
  const std::string script = sub + "/merge.sh";
  if (Status s = writeScript(script, "#SBATCH --job-name=gs-merge\n#SBATCH --output=" + sub + "/merge-%j.out\nexec" +
                                         joinQuoted(merge) + "\n");
      !s.isOk())
    return s;
  result.scripts.push_back(script);
  if (o.dry_run) return Status::ok();
  std::vector<std::string> args;
  if (!result.array_jobs.empty()) {
    std::string dep = "--dependency=afterany";
    for (const auto& id : result.array_jobs) dep += ":" + id;
    args.push_back(dep);
  }
  args.insert(args.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  auto id = sbatch(args, script);
  if (!id.isOk()) return id.status();
  result.merge_job = id.value();
  return Status::ok();
}

}  // namespace

Result<SubmitResult> submitSlurm(const SubmitOptions& o) {
  std::string plan_id;
  auto plan = readPlan(o.dir, &plan_id);
  if (!plan.isOk()) return plan.status();
  SubmitResult result;
  const auto pending = pendingShards(o.dir, plan_id, plan.value());
  result.pending_shards = static_cast<int>(pending.size());
  const auto blocks = blocksOf(pending, o.shards_per_task > 0 ? o.shards_per_task : defaultShardsPerTask(plan.value()));
  result.tasks = static_cast<int>(blocks.size());
  const std::string sub = submissionDir(o.dir);
  if (Status s = submitArrays(o, sub, blocks, result); !s.isOk()) return s;
  if (o.merge)
    if (Status s = submitMerge(o, sub, result); !s.isOk()) return s;
  return result;
}

}  // namespace gs::screen
