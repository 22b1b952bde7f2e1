#include "bubbles_scenario.h"
#include "mistakes_scenario.h"
#include "synthetic_scenario.h"
#include "xrpm/emulator/scenario.h"

namespace xrpm::emulator {

std::unique_ptr<Scenario> MakeScenario(const ScenarioParams& params) {
  if (params.name == "bubbles") return std::make_unique<BubblesScenario>(params, false);
  if (params.name == "leak") return std::make_unique<BubblesScenario>(params, true);
  if (params.name == "synthetic") return std::make_unique<SyntheticScenario>(params);
  if (params.name == "mistakes") return std::make_unique<MistakesScenario>();
  return nullptr;
}

std::string DefaultAppName(const std::string& scenario) {
  if (scenario == "mistakes") return "mistakes.exe";
  return scenario == "synthetic" ? "synthetic.exe" : "bubbles.exe";
}

const char* ScenarioNames() {
  return "bubbles, leak, synthetic, mistakes";
}

}  // namespace xrpm::emulator
