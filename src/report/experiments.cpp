#include "report/experiment.hpp"

namespace dalembert::report {

std::vector<Experiment> variational_experiments();
std::vector<Experiment> generating_experiments();
std::vector<Experiment> mla_experiments();
std::vector<Experiment> long_run_experiments();
std::vector<Experiment> dsocs_experiments();
std::vector<Experiment> contact_experiments();
std::vector<Experiment> field_experiments();
std::vector<Experiment> geometry_experiments();
std::vector<Experiment> bicycle_experiments();

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = [] {
    std::vector<Experiment> list;
    for (auto&& group : {variational_experiments(), generating_experiments(), mla_experiments(), dsocs_experiments(),
                         contact_experiments(), long_run_experiments(), field_experiments(),
                         geometry_experiments(), bicycle_experiments()})
      list.insert(list.end(), group.begin(), group.end());
    return list;
  }();
  return all;
}

}  // namespace dalembert::report
