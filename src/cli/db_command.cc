// `dlsim db`: import measurement records into the performance database,
// summarise it, export it, and fit the per-op-class models.
#include <cmath>
#include <cstdio>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "dlsim/kernel/key.h"
#include "dlsim/perfdb/fit.h"
#include "dlsim/perfdb/perf_db.h"
#include "dlsim/util/input_file.h"
#include "format_option.h"

namespace dlsim::cli {
namespace {

struct DbOptions {
  std::vector<std::string> files;
  std::string db_path;
  FormatOption format;
  std::string out;
  std::string gpu;
  int neighbours = FitOptions{}.neighbours;
  std::string band_keys;  // db fit: job list of keys of unseen models
  std::vector<std::string> key_lists;  // db exclude: job lists of the keys to leave out
};

// A file with nothing but blanks holds no record: refused before the
// database is opened (or created), so that nothing is written.
Status CheckNotBlank(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Ok();  // the import names a missing file itself
  char c = 0;
  while (in.get(c)) {
    if (!std::isspace(static_cast<unsigned char>(c))) return Status::Ok();
  }
  return InvalidArgument(path + ": no measurement record (the file is empty); nothing imported");
}

Status RunImport(const DbOptions& o) {
  for (const std::string& f : o.files) DLSIM_RETURN_IF_ERROR(CheckNotBlank(f));
  DLSIM_ASSIGN_OR_RETURN(PerfDb db, PerfDb::Open(o.db_path, OpenMode::kCreate));
  DLSIM_ASSIGN_OR_RETURN(ImportStats stats, db.ImportJsonl(o.files));
  for (const std::string& w : stats.warnings) ReportWarning(w);
  std::cout << "imported " << stats.records << " records from " << stats.files
            << (stats.files == 1 ? " file" : " files") << " into " << o.db_path << ": "
            << stats.inserted << " inserted, " << stats.replaced << " replaced\n";
  DLSIM_ASSIGN_OR_RETURN(DbStats after, db.Stats());
  for (const auto& [gpu, stacks] : after.stacks_per_gpu) {
    if (stacks < 2) continue;
    ReportWarning(o.db_path + ": GPU '" + gpu + "' now has " + std::to_string(stacks) +
                  " software stacks; estimates read only the most recently measured one "
                  "(docs/calibration.md, step 3)");
  }
  return Status::Ok();
}

std::string Padded(const std::string& s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

void PrintStatsTable(const std::string& path, const DbStats& s) {
  auto count = [&s](const char* status) {
    auto it = s.per_status.find(status);
    return it == s.per_status.end() ? int64_t{0} : it->second;
  };
  std::cout << "database: " << path << "\n"
            << "records:  " << s.records << " (ok " << count("ok") << ", noisy "
            << count("noisy") << ", unsupported " << count("unsupported") << ", failed "
            << count("failed") << ", counted " << count("counted") << ")\n\n"
            << Padded("GPU", 32) << "records\n";
  for (const auto& [gpu, n] : s.per_gpu) std::cout << Padded(gpu, 32) << n << "\n";
  std::cout << "\n" << Padded("kind", 32) << "records\n";
  for (const auto& [kind, n] : s.per_kind) std::cout << Padded(kind, 32) << n << "\n";
  std::cout << "\nsoftware stacks:\n";
  for (const SoftwareStack& st : s.stacks) {
    std::cout << "  driver " << st.driver << "  cuda " << st.cuda << "  cudnn " << st.cudnn
              << "  cublas " << st.cublas << "\n";
  }
  std::cout << "\nfitted model sets: " << s.fits << "\n";
}

Status RunStats(const DbOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(const OutputFormat format, o.format.Parse());
  DLSIM_ASSIGN_OR_RETURN(PerfDb db, PerfDb::Open(o.db_path, OpenMode::kReadOnly));
  DLSIM_ASSIGN_OR_RETURN(DbStats stats, db.Stats());
  if (format == OutputFormat::kJson) {
    std::cout << DbStatsToJson(stats) << "\n";
  } else {
    PrintStatsTable(o.db_path, stats);
  }
  return Status::Ok();
}

Status RunExport(const DbOptions& o) {
  OutputFormat format = OutputFormat::kJsonl;
  if (o.format.text.empty()) {
    const bool csv = o.out.size() >= 4 && o.out.compare(o.out.size() - 4, 4, ".csv") == 0;
    if (csv) format = OutputFormat::kCsv;
  } else {
    DLSIM_ASSIGN_OR_RETURN(format, o.format.Parse());
  }
  DLSIM_ASSIGN_OR_RETURN(PerfDb db, PerfDb::Open(o.db_path, OpenMode::kReadOnly));
  DLSIM_RETURN_IF_ERROR(format == OutputFormat::kCsv ? db.ExportCsv(o.out) : db.ExportJsonl(o.out));
  std::cout << "exported " << o.db_path << " to " << o.out << " (" << OutputFormatName(format) << ")\n";
  return Status::Ok();
}

Result<std::string> ChooseGpu(const PerfDb& db, const std::string& requested) {
  DLSIM_ASSIGN_OR_RETURN(std::vector<std::string> gpus, db.GpuNames());
  if (!requested.empty()) return requested;
  if (gpus.size() == 1) return gpus[0];
  std::string names;
  for (const auto& g : gpus) names += (names.empty() ? "'" : ", '") + g + "'";
  return InvalidArgument(db.path() + ": " + std::to_string(gpus.size()) +
                         " GPUs in the database; pick one with --gpu (" + names + ")");
}

std::string Fixed(double v, int decimals) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "-12.3..+4.5 (n 40)": the band's P10 and P90 in percent, or "-".
std::string BandText(const FitClassReport& m) {
  if (m.n_band == 0) return "-";
  return Fixed((std::exp(m.band_log_p10) - 1) * 100, 1) + ".." +
         Fixed((std::exp(m.band_log_p90) - 1) * 100, 1) + " (n " + std::to_string(m.n_band) +
         ", median " + Fixed(m.band_median_rel_err * 100, 1) + ")";
}

void PrintFitReport(const std::string& path, const FitReport& r, int neighbours) {
  std::cout << "fitted models for " << r.gpu_name << " (" << r.sm_count
            << " SMs), stored in " << path << "\n"
            << "base = t0 + flops / (TFLOP/s * wave efficiency) + bytes / (GB/s)\n"
            << (neighbours > 0 ? "time = base x geometric mean of measured/base over the " +
                                     std::to_string(neighbours) + " nearest measured keys\n"
                               : std::string("time = base (no neighbour correction)\n"))
            << "     or base x the kind's boosted trees, whichever erred less on the held-out keys\n"
            << "held-out error (%): the model fitted without the held-out keys (neighbours; "
               "boosted); base: without a correction\n"
            << "band%: P10..P90 (and median |error|) of measured vs predicted on keys of models the "
               "fit never saw (--band-keys); else +-P90 held-out error\n\n"
            << Padded("class", 26) << Padded("train", 7) << Padded("test", 6)
            << Padded("t0_us", 9) << Padded("TFLOP/s", 10) << Padded("GB/s", 9)
            << Padded("median_err%", 13) << Padded("p90_err%", 10) << Padded("boost_med%", 12)
            << Padded("boost_p90%", 12) << Padded("base_median%", 14) << Padded("base_p90%", 11)
            << Padded("uses", 12) << "band%\n";
  for (const FitClassReport& m : r.classes) {
    std::cout << Padded(m.kind + "/" + m.math, 26) << Padded(std::to_string(m.n_train), 7)
              << Padded(std::to_string(m.n_test), 6) << Padded(Fixed(m.t0_s * 1e6, 2), 9)
              << Padded(m.s_per_flop > 0 ? Fixed(1e-12 / m.s_per_flop, 1) : "-", 10)
              << Padded(m.s_per_byte > 0 ? Fixed(1e-9 / m.s_per_byte, 0) : "-", 9)
              << Padded(Fixed(m.test_median_rel_err * 100, 1), 13)
              << Padded(Fixed(m.test_p90_rel_err * 100, 1), 10)
              << Padded(Fixed(m.boosted_test_median_rel_err * 100, 1), 12)
              << Padded(Fixed(m.boosted_test_p90_rel_err * 100, 1), 12)
              << Padded(Fixed(m.base_test_median_rel_err * 100, 1), 14)
              << Padded(Fixed(m.base_test_p90_rel_err * 100, 1), 11)
              << Padded(FitCorrectionName(m.correction), 12) << BandText(m) << "\n";
  }
  for (const std::string& s : r.skipped) std::cout << "skipped " << s << "\n";
  if (r.classes.empty()) ReportWarning("no kernel class had enough measured keys to fit");
}

// A job list (dlsim plan's format): one key per line; blank lines and lines
// starting with '#' are skipped. Every key must parse.
Result<std::set<std::string>> ReadKeyList(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, "key list", int64_t{1} << 30));
  std::set<std::string> keys;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto parsed = ParseKernelKey(line);
    if (!parsed.ok()) {
      return parsed.status().WithContext(path + ":" + std::to_string(n));
    }
    keys.insert(line);
  }
  if (keys.empty()) return InvalidArgument(path + ": no kernel key in the key list");
  return keys;
}

// Fits the models of one GPU (o.gpu, or the database's only one) on its
// records and stores them in the database.
Result<FittedModels> FitAndStore(PerfDb& db, const DbOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(std::string gpu_name, ChooseGpu(db, o.gpu));
  DLSIM_ASSIGN_OR_RETURN(GpuInfo gpu, db.Gpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(std::vector<MeasurementRecord> records, db.RecordsOfGpu(gpu_name));
  FitOptions fit_options;
  fit_options.neighbours = o.neighbours;
  if (!o.band_keys.empty()) {
    DLSIM_ASSIGN_OR_RETURN(fit_options.band_keys, ReadKeyList(o.band_keys));
  }
  DLSIM_ASSIGN_OR_RETURN(FittedModels models, FitModels(records, gpu.sms, fit_options));
  DLSIM_RETURN_IF_ERROR(db.StoreFit(gpu_name, models));
  return models;
}

Status RunFit(const DbOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(PerfDb db, PerfDb::Open(o.db_path, OpenMode::kReadWrite));
  DLSIM_ASSIGN_OR_RETURN(FittedModels models, FitAndStore(db, o));
  PrintFitReport(o.db_path, models.report(), models.neighbours());
  return Status::Ok();
}

// Writes o.out, a copy of the database without any record of the listed
// keys, with its models fitted anew: prices as a user whose model nothing was
// measured for would get them. Written beside o.out and renamed when
// complete, so a failure leaves no partial file.
Status RunExclude(const DbOptions& o) {
  std::set<std::string> keys;
  for (const std::string& list : o.key_lists) {
    DLSIM_ASSIGN_OR_RETURN(std::set<std::string> listed, ReadKeyList(list));
    keys.insert(listed.begin(), listed.end());
  }
  { DLSIM_ASSIGN_OR_RETURN(PerfDb source, PerfDb::Open(o.db_path, OpenMode::kReadOnly)); }
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.out) && fs::equivalent(o.db_path, o.out, ec)) {
    return InvalidArgument(o.out + ": --out is the database itself; write the copy elsewhere");
  }
  const std::string partial = o.out + ".partial";
  fs::copy_file(o.db_path, partial, fs::copy_options::overwrite_existing, ec);
  if (ec) return InvalidArgument(partial + ": cannot write the copy: " + ec.message());
  Status done = [&]() -> Status {
    DLSIM_ASSIGN_OR_RETURN(PerfDb db, PerfDb::Open(partial, OpenMode::kReadWrite));
    DLSIM_ASSIGN_OR_RETURN(int64_t removed, db.DeleteKeys(keys));
    DLSIM_ASSIGN_OR_RETURN(FittedModels models, FitAndStore(db, o));
    DLSIM_ASSIGN_OR_RETURN(DbStats kept, db.Stats());
    std::cout << "wrote " << o.out << ": " << removed << " records of " << keys.size()
              << " listed keys left out, " << kept.records << " records kept; models fitted on "
              << "them (" << models.report().classes.size() << " classes)\n";
    return Status::Ok();
  }();
  if (done.ok()) fs::rename(partial, o.out, ec);
  if (!done.ok() || ec) {
    fs::remove(partial);
    return done.ok() ? InvalidArgument(o.out + ": cannot write: " + ec.message()) : done;
  }
  return Status::Ok();
}

// Adds a sub-command whose callback runs `run` on the shared options.
CLI::App* AddAction(CLI::App* db, const char* name, const char* help,
                    std::shared_ptr<DbOptions> opts, Status (*run)(const DbOptions&),
                    int* exit_code) {
  CLI::App* cmd = db->add_subcommand(name, help);
  cmd->add_option("--db", opts->db_path, "performance database file (SQLite)")->required();
  cmd->callback([opts, run, exit_code] {
    Status status = run(*opts);
    *exit_code = status.ok() ? 0 : ReportError(status);
  });
  return cmd;
}

}  // namespace

void RegisterDbCommand(CLI::App& app, int* exit_code) {
  auto* db = app.add_subcommand(
      "db", "Manage the performance database: import measurements, stats, export, fit models");
  db->require_subcommand(1);
  // Each sub-command has its own options: CLI11 writes defaults at definition.
  auto opts = std::make_shared<DbOptions>();
  auto* import = AddAction(db, "import",
                           "Import dlsim-calibrate JSON-lines files (all files in one "
                           "transaction; re-importing replaces rows)",
                           opts, RunImport, exit_code);
  import->add_option("files", opts->files, "measurement files (.jsonl)")->required();

  opts = std::make_shared<DbOptions>();
  auto* stats = AddAction(db, "stats", "Summarise the database: records per GPU, kind, status",
                          opts, RunStats, exit_code);
  AddFormatOption(stats, &opts->format, {OutputFormat::kTable, OutputFormat::kJson});

  opts = std::make_shared<DbOptions>();
  auto* export_cmd = AddAction(db, "export", "Write every record as JSON lines or CSV", opts,
                               RunExport, exit_code);
  export_cmd->add_option("--out", opts->out, "output file")->required();
  AddFormatOption(export_cmd, &opts->format, {OutputFormat::kJsonl, OutputFormat::kCsv}, "(default: from --out)", true);

  opts = std::make_shared<DbOptions>();
  auto* fit = AddAction(db, "fit",
                        "Fit per-op-class models for one GPU, store them in the database, "
                        "and print the held-out error of each",
                        opts, RunFit, exit_code);
  fit->add_option("--gpu", opts->gpu, "GPU name (optional when the database has one GPU)");
  fit->add_option("--neighbours", opts->neighbours,
                  "measured keys nearest to a query that correct the base model (0: base only)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  fit->add_option("--band-keys", opts->band_keys,
                  "job list of keys measured for models nothing else was measured for: models "
                  "fitted without them price them, and their error per class is the band");

  opts = std::make_shared<DbOptions>();
  auto* exclude = AddAction(db, "exclude",
                            "Copy the database without the records of listed keys (a model's "
                            "own kernels) and fit the copy: prices as for a model nothing was "
                            "measured for",
                            opts, RunExclude, exit_code);
  exclude->add_option("--keys", opts->key_lists,
                      "job lists (dlsim plan's format) of the keys to leave out (repeatable)")
      ->required();
  exclude->add_option("--out", opts->out, "the copy to write (replaced if it exists)")->required();
  exclude->add_option("--gpu", opts->gpu, "GPU to fit (optional when the database has one GPU)");
  exclude->add_option("--neighbours", opts->neighbours,
                      "measured keys nearest to a query that correct the base model")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
}

}  // namespace dlsim::cli
