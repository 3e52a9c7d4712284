#include "sowdb/gen/solver.h"

#include <stdexcept>
#include <string>

#include "solver_internal.h"

namespace sowdb::gen {

Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const SolveOptions& options) {
  if (stones < 0 || stones > kMaxIndexedStones) {
    throw std::invalid_argument("stone count out of range: " + std::to_string(stones));
  }
  if (rules.family != Family::kOware) {
    return solver_internal::solve_acyclic(rules, stones, smaller, options);
  }
  return solver_internal::solve_cyclic(rules, stones, smaller, options);
}

Layer solve_layer(const RuleSet& rules,
                  int stones,
                  const SmallerValues& smaller,
                  const std::function<void(double)>& progress) {
  SolveOptions options;
  options.progress = progress;
  return solve_layer(rules, stones, smaller, options);
}

}  // namespace sowdb::gen