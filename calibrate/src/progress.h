// Progress lines and the time budget of `dlsim-calibrate run`: host-only.
#ifndef DLSIM_CALIBRATE_PROGRESS_H_
#define DLSIM_CALIBRATE_PROGRESS_H_

#include <map>
#include <string>

namespace dlcal {

// "# 120/800 keys (15%), 95 s elapsed, ETA 538 s"
std::string ProgressLine(size_t done, size_t total, double elapsed_s);

// Predicts a key's duration from the keys of its kind measured so far (the
// slowest of them, so a budget is not overrun by the next one), else from
// all keys, else `first_guess_s`.
class BudgetEstimator {
 public:
  explicit BudgetEstimator(double first_guess_s = 2.0) : first_guess_s_(first_guess_s) {}
  void Add(const std::string& kind, double seconds);
  double Predict(const std::string& kind) const;
  // Whether a key of `kind` started at `elapsed_s` ends within `budget_s`
  // (budget_s <= 0: no budget).
  bool Fits(const std::string& kind, double elapsed_s, double budget_s) const;

 private:
  double first_guess_s_;
  std::map<std::string, double> max_by_kind_;
  double total_s_ = 0;
  size_t count_ = 0;
};

}  // namespace dlcal

#endif  // DLSIM_CALIBRATE_PROGRESS_H_
