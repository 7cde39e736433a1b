// `graphormer-cli screen plan|run|work|status|merge`: argument parsing only; the work is in
// core/screen (docs/SCREENING.md).
#include <glob.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli_options.h"
#include "screen/merge.h"
#include "screen/plan_builder.h"
#include "screen/shard_worker.h"
#include "screen/slurm.h"
#include "screen/status_report.h"
#include "screen/supervisor.h"

namespace gs::app {
namespace {

volatile sig_atomic_t g_stop = 0;
void onStop(int) { g_stop = 1; }

// SIGUSR1 (Slurm's walltime warning), SIGTERM and SIGINT ask for a clean stop; no SA_RESTART so
// a supervisor blocked in waitpid() wakes up to pass the request on.
void installStopHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onStop;
  sigemptyset(&sa.sa_mask);
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGUSR1, SIGTERM, SIGINT}) {
    sigaction(sig, &sa, nullptr);
    sigaddset(&set, sig);
  }
  sigprocmask(SIG_UNBLOCK, &set, nullptr);  // a supervisor starts workers with them blocked
}

bool stopRequested() { return g_stop != 0; }

std::vector<std::string> expandInputs(const std::string& spec, std::string* error) {
  std::vector<std::string> out;
  for (const auto& pattern : splitList(spec)) {
    glob_t g{};
    const int rc = ::glob(pattern.c_str(), GLOB_NOCHECK | GLOB_TILDE, nullptr, &g);
    if (rc == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  if (out.empty()) *error = "screen plan needs --input FILE|GLOB[,FILE|GLOB...]";
  return out;
}

bool readCodec(const std::string& name, Codec* out, std::string* error) {
  if (name == "gz" || name == "gzip")
    *out = Codec::Gzip;
  else if (name == "zst" || name == "zstd")
    *out = Codec::Zstd;
  else if (name == "bz2" || name == "bzip2")
    *out = Codec::Bzip2;
  else if (name == "none")
    *out = Codec::None;
  else {
    *error = "--output-codec must be gz, zst, bz2 or none";
    return false;
  }
  return true;
}

void note(const std::string& line) { std::cerr << "screen: " << line << "\n"; }

int planCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  screen::PlanOptions o;
  const FlagSet flags =
      FlagSet{{"--input", "--out", "--shard-minutes", "--shard-rows", "--shards", "--output-codec", "--chunk-rows"},
              {}} +
      modelFlags() + inputFlags() + collationFlags() + trustFlags();
  int shard_rows = 0;
  if (!args.parse(argc, argv, 3, flags.valued, flags.switches, &error) ||
      !readModelFlags(args, {}, &o.predictor, &error) || !readTrustFlags(args, &o.predictor, &error) ||
      !readInputFlags(args, &o.reader, &o.predictor, &error) ||
      !readCollationFlags(args, &o.predictor.session, &error) ||
      !args.getInt("--shard-rows", 0, 0, 1 << 30, &shard_rows, &error) ||
      !args.getInt("--shards", 0, 0, 1 << 24, &o.shards, &error) ||
      !args.getInt("--chunk-rows", 0, 1, 1 << 20, &o.chunk_rows, &error) ||
      !readCodec(args.get("--output-codec", "gz"), &o.output_codec, &error))
    return fail(error);
  double minutes = 5;
  if (!args.getDouble("--shard-minutes", 0.05, 24 * 60, &minutes, &error)) return fail(error);
  o.shard_seconds = minutes * 60;
  o.shard_rows = shard_rows;
  o.dir = args.get("--out");
  o.inputs = expandInputs(args.get("--input"), &error);
  if (o.dir.empty()) return fail("screen plan needs --out DIR");
  if (o.inputs.empty()) return fail(error);
  o.note = note;
  auto plan = screen::buildPlan(o);
  if (!plan.isOk()) return fail(plan.status().toString());
  int64_t rows = 0;
  for (const auto& in : plan->inputs) rows += std::max<int64_t>(0, in.rows);
  std::cerr << "screen: planned " << plan->shards.size() << " shards over " << plan->inputs.size() << " input(s), "
            << rows << " rows counted; measured " << plan->measured_rate << " molecules/s per process\n"
            << "wrote " << o.dir << "/plan.json; run it with `graphormer-cli screen run " << o.dir << " --local N`\n";
  return 0;
}

std::string selfPath(const char* argv0) {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string(argv0);
}

int workCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  screen::WorkOptions o;
  o.dir = argv[3];
  int shard = -1;
  if (!args.parse(argc, argv, 4, {"--shard", "--from-row", "--to-row", "--mark-crashed", "--device"}, {}, &error) ||
      !args.getInt("--shard", -1, 0, 1 << 30, &shard, &error))
    return fail(error);
  o.shard = shard;
  o.device = args.get("--device");
  o.from_row = std::atoll(args.get("--from-row", "0").c_str());
  o.to_row = std::atoll(args.get("--to-row", "0").c_str());
  o.mark_crashed = args.has("--mark-crashed");
  o.crash_message = args.get("--mark-crashed");
  installStopHandlers();
  o.stop = stopRequested;
  auto result = screen::runShard(o);
  if (!result.isOk()) {
    fail(result.status().toString());
    const StatusCode code = result.status().code();
    return code == StatusCode::InvalidArgument || code == StatusCode::MalformedRecord ? screen::kWorkFatal : 1;
  }
  std::cerr << "screen: shard " << shard << ": " << result->rows << " rows committed"
            << (result->complete ? ", shard complete" : "")
            << (result->duplicate ? " (a duplicate: another attempt was first)" : "") << "\n";
  return result->stopped && !result->complete ? screen::kWorkStopped : screen::kWorkComplete;
}

// --slurm-array: the shards of this array task, from the block file `screen submit` wrote (line
// SLURM_ARRAY_TASK_ID - offset holds its shard ids).
bool arrayShards(const CliArgs& args, std::vector<int>* shards, std::string* error) {
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (!task) {
    *error = "--slurm-array runs inside a Slurm array task (SLURM_ARRAY_TASK_ID is not set)";
    return false;
  }
  std::ifstream blocks(args.get("--blocks"));
  if (!blocks) {
    *error = "--slurm-array needs --blocks FILE (written by `screen submit`)";
    return false;
  }
  const long index = std::atol(task);
  std::string line;
  for (long i = 0; std::getline(blocks, line); ++i) {
    if (i != index) continue;
    for (const auto& id : splitList(line)) shards->push_back(std::atoi(id.c_str()));
    return true;
  }
  *error = "no block " + std::to_string(index) + " in " + args.get("--blocks");
  return false;
}

// `mpirun ... graphormer-cli screen run DIR --mpi`: each rank becomes graphormer-screen-mpi (its
// own target, beside this program), so this program never links MPI.
int execMpi(const char* argv0, const std::string& dir, int local) {
  const std::string self = selfPath(argv0);
  std::string mpi = self.substr(0, self.find_last_of('/') + 1) + "graphormer-screen-mpi";
  std::vector<std::string> args{mpi, dir, "--local", std::to_string(local), "--worker", self};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(mpi.c_str(), argv.data());
  return fail("--mpi needs " + mpi + " (built when MPI is found: libopenmpi-dev): " + std::strerror(errno));
}

int runCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  screen::SuperviseOptions o;
  o.dir = argv[3];
  int shard = -1, local = 1;
  if (!args.parse(argc, argv, 4, {"--shard", "--local", "--max-attempts", "--blocks", "--device"},
                  {"--slurm-array", "--mpi"}, &error) ||
      !args.getInt("--shard", -1, 0, 1 << 30, &shard, &error) || !args.getInt("--local", 1, 1, 1024, &local, &error) ||
      !args.getInt("--max-attempts", 3, 1, 100, &o.max_attempts, &error))
    return fail(error);
  if (args.has("--mpi")) return execMpi(argv[0], o.dir, local);
  if (shard >= 0) o.shards = {shard};
  if (args.has("--slurm-array") && !arrayShards(args, &o.shards, &error)) return fail(error);
  o.parallel = local;
  o.worker = selfPath(argv[0]);
  if (args.has("--device")) o.slot_devices.assign(static_cast<size_t>(local), args.get("--device"));
  installStopHandlers();
  o.stop = stopRequested;
  o.note = note;
  auto result = screen::supervise(o);
  if (!result.isOk()) return fail(result.status().toString());
  for (const auto& e : result->errors) std::cerr << "screen: " << e << "\n";
  std::cerr << "screen: " << result->done << " shard(s) complete, " << result->failed << " failed, "
            << result->quarantined << " quarantined"
            << (result->stopped ? "; stopped on request (re-run to resume)" : "") << "\n";
  return result->failed > 0 ? 1 : 0;
}

int statusCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  int processes = 1;
  if (!args.parse(argc, argv, 4, {"--processes"}, {}, &error) ||
      !args.getInt("--processes", 1, 1, 1 << 20, &processes, &error))
    return fail(error);
  auto status = screen::screenStatus(argv[3], processes);
  if (!status.isOk()) return fail(status.status().toString());
  screen::printStatus(std::cout, status.value());
  return 0;
}

int mergeCommand(int argc, char** argv) {
  CliArgs args;
  std::string error;
  screen::MergeOptions o;
  o.dir = argv[3];
  int top = 0;
  if (!args.parse(argc, argv, 4, {"--output", "--top", "--by", "--where", "--hits"},
                  {"--ascending", "--no-sdf", "--no-sqlite"}, &error) ||
      !args.getInt("--top", 0, 0, 1 << 30, &top, &error))
    return fail(error);
  o.output = args.get("--output");
  if (args.has("--top") || args.has("--by") || args.has("--where")) {
    screen::HitOptions h;
    h.top = top;
    h.by = splitList(args.get("--by"));
    h.ascending = args.has("--ascending");
    h.where = args.get("--where");
    h.prefix = args.get("--hits");
    h.sdf = !args.has("--no-sdf");
    h.sqlite = !args.has("--no-sqlite");
    o.hits = h;
  }
  auto m = screen::mergeScreen(o);
  if (!m.isOk()) return fail(m.status().toString());
  std::cerr << "screen: merged " << m->rows << " rows";
  for (const auto& [k, v] : m->by_status) std::cerr << ", " << v << " " << k;
  std::cerr << " in " << m->merge_seconds << " s\nwrote " << m->output << " and " << m->output << ".json\n";
  for (const auto& list : m->hit_lists) {
    std::cerr << "hits by " << list.column << ": " << list.rows << " rows in";
    for (const auto& f : list.files) std::cerr << " " << f;
    std::cerr << "\n";
  }
  return 0;
}

int submitCommand(int argc, char** argv) {
  // Everything after "--" goes to sbatch unchanged.
  int ours = argc;
  for (int i = 4; i < argc; ++i)
    if (!std::strcmp(argv[i], "--")) {
      ours = i;
      break;
    }
  CliArgs args;
  std::string error;
  screen::SubmitOptions o;
  o.dir = argv[3];
  if (!args.parse(ours, argv, 4, {"--shards-per-task", "--throttle", "--local", "--merge-args", "--cli"},
                  {"--slurm", "--no-merge", "--dry-run"}, &error) ||
      !args.getInt("--shards-per-task", 0, 0, 1 << 20, &o.shards_per_task, &error) ||
      !args.getInt("--throttle", 0, 0, 1 << 20, &o.throttle, &error) ||
      !args.getInt("--local", 1, 1, 1024, &o.local, &error))
    return fail(error);
  if (!args.has("--slurm"))
    return fail("screen submit needs --slurm (the MPI form is `mpirun graphormer-screen-mpi DIR`)");
  for (int i = ours + 1; i < argc; ++i) o.sbatch_args.push_back(argv[i]);
  std::istringstream merge(args.get("--merge-args"));
  for (std::string word; merge >> word;) o.merge_args.push_back(word);
  o.cli = args.get("--cli", selfPath(argv[0]));
  o.merge = !args.has("--no-merge");
  o.dry_run = args.has("--dry-run");
  auto r = screen::submitSlurm(o);
  if (!r.isOk()) return fail(r.status().toString());
  std::cerr << "screen: " << r->pending_shards << " shard(s) without a receipt in " << r->tasks << " array task(s)";
  for (const auto& id : r->array_jobs) std::cerr << "; array job " << id;
  if (!r->merge_job.empty()) std::cerr << "; merge job " << r->merge_job << " after them";
  std::cerr << "\n";
  for (const auto& s : r->scripts) std::cout << s << "\n";
  return 0;
}

}  // namespace

int screenCommand(int argc, char** argv) {
  const std::string sub = argc > 2 ? argv[2] : "";
  if (sub == "plan") return planCommand(argc, argv);
  if (argc < 4 || argv[3][0] == '-')
    return fail("usage: graphormer-cli screen plan|run|status|merge DIR ... (see graphormer-cli --help)");
  if (sub == "run") return runCommand(argc, argv);
  if (sub == "work") return workCommand(argc, argv);
  if (sub == "status") return statusCommand(argc, argv);
  if (sub == "merge") return mergeCommand(argc, argv);
  if (sub == "submit") return submitCommand(argc, argv);
  return fail("unknown screen command '" + sub + "' (plan, run, submit, status, merge)");
}

}  // namespace gs::app
