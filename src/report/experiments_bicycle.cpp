// The benchmark Whipple bicycle of [MPRS07]: the eigenvalues of upright straight running against the
// speed, from the steady-motion linearisation of the nonlinear model (models/large/whipple-bicycle.toml,
// docs/bicycle.md), against the paper's table 2 and its weave and capsize speeds.
//
// Upright straight running at speed v is a steady motion: x grows at v, the wheels turn at v/rR and
// v/rF. Its linearisation on the constraints, reduced by the translations of x, y and the wheels'
// angles and by the rotation of the ground plane with the yaw, has six eigenvalues: the two of
// smallest modulus are zeros (the level of the front contact's holonomic constraint, and the speed),
// the other four the benchmark's modes (capsize, castering, the weave pair).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "modelfile/entry.hpp"
#include "modelfile/model.hpp"
#include "report/experiment_support.hpp"
#include "support/data.hpp"
#include "support/output_file.hpp"

namespace dalembert::report {

namespace {

using Modes = std::vector<std::complex<double>>;

/// Table 2 of [MPRS07], as printed: at v = 0, 1, …, 10 m/s the four eigenvalues (at rest four real
/// ones; then the two real ones and the weave pair's real and imaginary parts).
struct Table2Row {
  double v;
  Modes modes;
};
std::vector<Table2Row> table_2() {
  const auto row = [](double v, double a, double b, double re, double im) {
    return Table2Row{v, {{a, 0.0}, {b, 0.0}, {re, im}, {re, -im}}};
  };
  return {{0.0, {{-5.53094371765393, 0}, {-3.13164324790656, 0}, {3.13164324790656, 0}, {5.53094371765393, 0}}},
          row(1, -7.11008014637442, -3.13423125066578, 3.52696170990070, 0.80774027519930),
          row(2, -8.67387984831735, -3.07158645641514, 2.68234517512745, 1.68066296590675),
          row(3, -10.35101467245920, -2.63366137253667, 1.70675605663975, 2.31582447384325),
          row(4, -12.15861426576450, -1.42944427361326, 0.41325331521125, 3.07910818603206),
          row(5, -14.07838969279820, -0.32286642900409, -0.77534188219585, 4.46486771378823),
          row(6, -16.08537123098030, -0.00406690076970, -1.52644486584142, 5.87673060598709),
          row(7, -18.15788466125262, 0.10268170574766, -2.13875644258362, 7.19525913329805),
          row(8, -20.27940894394569, 0.14327879765713, -2.69348683581097, 8.46037971396931),
          row(9, -22.43788559040858, 0.15790184030917, -3.21675402252485, 9.69377351531791),
          row(10, -24.62459635017404, 0.16105338653172, -3.72016840437287, 10.90681139476287)};
}
// The paper's weave and capsize speeds (its table 2, part a), m/s.
constexpr double published_weave = 4.29238253634111, published_capsize = 6.02426201538837;

/// The bicycle's four modes at speed v: the eigenvalues but the two of smallest modulus, largest
/// real part first.
class Bicycle {
 public:
  explicit Bicycle(const catalogue::Entry& entry) : entry_(entry) {
    const auto model = modelfile::loaded_model_of(entry);
    for (const auto& p : model->spec.parameters) {
      if (p.name == "rR") rear_radius_ = p.value;
      if (p.name == "rF") front_radius_ = p.value;
    }
    request_.symmetric = {"x", "y", "rear", "front"};
    request_.rotation = {"x", "y", "yaw"};
  }

  Modes modes(double v) const {
    InitialData init;
    init.q0 = Eigen::VectorXd::Zero(8);
    init.v0 = Eigen::VectorXd::Zero(8);
    init.v0[0] = v;
    init.v0[6] = v / rear_radius_;
    init.v0[7] = v / front_radius_;
    const auto motion = entry_.steady({}, init, request_);
    Modes all(motion.eigenvalues.data(), motion.eigenvalues.data() + motion.eigenvalues.size());
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return std::abs(a) < std::abs(b); });
    Modes four(all.begin() + 2, all.end());
    std::sort(four.begin(), four.end(), [](const auto& a, const auto& b) {
      return a.real() != b.real() ? a.real() > b.real() : a.imag() > b.imag();
    });
    return four;
  }

  /// The largest real part of the oscillating modes (the weave pair) or of the real ones.
  double largest_real_part(double v, bool oscillating) const {
    double largest = -INFINITY;
    for (const auto& e : modes(v))
      if ((std::abs(e.imag()) > 1e-6) == oscillating) largest = std::max(largest, e.real());
    return largest;
  }

 private:
  const catalogue::Entry& entry_;
  catalogue::SteadyRequest request_;
  double rear_radius_ = 0.3, front_radius_ = 0.35;
};

/// The root of f in [a, b], where f changes sign, by bisection to `tolerance`.
template <class F>
double bisect(F f, double a, double b, double tolerance) {
  double fa = f(a);
  while (b - a > tolerance) {
    const double c = 0.5 * (a + b), fc = f(c);
    if ((fc < 0) == (fa < 0)) {
      a = c;
      fa = fc;
    } else {
      b = c;
    }
  }
  return 0.5 * (a + b);
}

/// Largest |ours − table| over the table's modes, each matched to the nearest of ours, relative to
/// max(1, |λ|).
double table_difference(const Modes& ours, const Modes& table) {
  double worst = 0.0;
  for (const auto& e : table) {
    double nearest = INFINITY;
    for (const auto& o : ours) nearest = std::min(nearest, std::abs(o - e));
    worst = std::max(worst, nearest / std::max(1.0, std::abs(e)));
  }
  return worst;
}

Outcome meijaard_bicycle(const Context& ctx) {
  Outcome out;
  const auto path = support::find_data_file("models/whipple-bicycle.toml");
  if (!path) throw std::runtime_error("models/whipple-bicycle.toml is not among dalembert's data files");
  // Interpreted: a linearisation evaluates the model a few times, where compiling its kernels takes
  // the system compiler minutes.
  const Bicycle bicycle(modelfile::model_file_entry(*path, modelfile::Kernels::interpreted));

  // v = 0.05 k: table 2's speeds are every 20th (k = 20 v)
  std::vector<Modes> grid;
  std::vector<std::vector<double>> columns(9);
  for (int k = 0; k <= 200; ++k) {
    const double v = k / 20.0;  // exact at the integers
    const Modes& four = grid.emplace_back(bicycle.modes(v));
    columns[0].push_back(v);
    for (int i = 0; i < 4; ++i) {
      columns[static_cast<std::size_t>(1 + 2 * i)].push_back(four[static_cast<std::size_t>(i)].real());
      columns[static_cast<std::size_t>(2 + 2 * i)].push_back(four[static_cast<std::size_t>(i)].imag());
    }
  }
  write_table(ctx.path("eigenvalues.csv"),
              table({"v", "re_1", "im_1", "re_2", "im_2", "re_3", "im_3", "re_4", "im_4"}, columns));

  const double weave = bisect([&](double v) { return bicycle.largest_real_part(v, true); }, 4.0, 4.5, 1e-12);
  const double capsize = bisect([&](double v) { return bicycle.largest_real_part(v, false); }, 5.5, 6.5, 1e-12);
  char json[128];
  std::snprintf(json, sizeof json, "{\n  \"weave\": %.17g,\n  \"capsize\": %.17g\n}\n", weave, capsize);
  support::write_file("output", ctx.path("speeds.json"), json);

  double worst = 0.0, worst_v = 0.0;
  for (const auto& row : table_2()) {
    const double d = table_difference(grid[static_cast<std::size_t>(std::lround(20 * row.v))], row.modes);
    if (d > worst) {
      worst = d;
      worst_v = row.v;
    }
  }
  const double weave_off = std::abs(weave - published_weave) / published_weave;
  const double capsize_off = std::abs(capsize - published_capsize) / published_capsize;
  out.numbers.push_back({"weave speed (m/s)", format(weave, 15),
                         "benchmark 4.29238253634111, relative difference " + format(weave_off)});
  out.numbers.push_back({"capsize speed (m/s)", format(capsize, 15),
                         "benchmark 6.02426201538837, relative difference " + format(capsize_off)});
  out.numbers.push_back({"table 2: the four modes at v = 0, 1, …, 10 m/s", format(worst),
                         "largest difference relative to max(1, |λ|), at v = " + format(worst_v, 2) +
                             " (the table prints 14 decimals)"});
  std::string modes_5;
  for (const auto& e : grid[100]) {  // v = 5
    char text[64];
    std::snprintf(text, sizeof text, e.imag() == 0.0 ? "%.6f" : "%.6f %+.6fi", e.real(), e.imag());
    modes_5 += (modes_5.empty() ? "" : ", ") + std::string(text);
  }
  out.numbers.push_back({"the modes at 5 m/s", modes_5, "all stable: 5 m/s lies between the two speeds"});

  Figure figure{ctx.path("eigenvalues"),
                "benchmark Whipple bicycle: the eigenvalues of upright straight running",
                "speed v (m/s)",
                "eigenvalues (1/s): real parts, |imaginary parts|",
                "linear",
                "linear",
                false,
                {}};
  for (int i = 1; i <= 4; ++i) {
    const std::string k = std::to_string(i);
    figure.series.push_back({ctx.path("eigenvalues.csv"), "v", "re_" + k, i == 1 ? "real part" : "", "markers", "",
                             "black"});
    figure.series.push_back({ctx.path("eigenvalues.csv"), "v", "im_" + k, i == 1 ? "|imaginary part|" : "", "markers",
                             "abs", "tab:blue"});
  }
  out.figures.push_back(figure);

  const bool supported = weave_off < 1e-7 && capsize_off < 1e-7 && worst < 1e-12;
  out.verdict = supported ? Verdict::supported : Verdict::not_supported;
  out.explanation = supported ? "the linearisation of the nonlinear model, built from bodies and contacts, gives "
                                "the benchmark's eigenvalues to its printed digits' accuracy and its weave and "
                                "capsize speeds"
                              : "the eigenvalues or the speeds differ from the benchmark's (see the numbers)";
  return out;
}

}  // namespace

std::vector<Experiment> bicycle_experiments() {
  return {
      {"meijaard-bicycle", "The benchmark bicycle's stability against its speed", "[MPRS07]",
       "Table 2, Fig. 3", "the Whipple bicycle with the benchmark's parameters (table 1), 8 coordinates, four "
       "rolling and one holonomic constraint",
       "the steady-motion linearisation of the nonlinear model on the constraints, reduced by its symmetries",
       "upright straight running at v = 0 to 10 m/s in steps of 0.05; the speeds bracketed to 1e-12",
       "the weave speed 4.29238253634111 m/s and capsize speed 6.02426201538837 m/s bound the self-stable "
       "range; table 2's eigenvalues",
       meijaard_bicycle},
  };
}

}  // namespace dalembert::report
