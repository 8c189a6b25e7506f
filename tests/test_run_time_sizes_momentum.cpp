// One method layer for every size, the momentum methods: the generating-function integrators
// (GF-α, GF-sym-α, GF-CP-α) and FIM on a model of run-time size (tests/at_run_time.hpp, within a
// bound) give the steps they give on the compiled fixed-size model.
#include <gtest/gtest.h>

#include "same_steps_at_run_time.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

const auto gf = [](const auto& sys) { return make_gf(sys, 0.1); };
const auto gf_off_centre = [](const auto& sys) { return make_gf(sys, 0.1, 0.3); };
const auto gf_sym = [](const auto& sys) { return make_gf_sym(sys, 0.1, 0.3); };
const auto gf_cp = [](const auto& sys) { return make_gf_cp(sys, 0.1); };
const auto gf_cp_sym = [](const auto& sys) { return make_gf_cp(sys, 0.1, 0.0, true); };
const auto fim = [](const auto& sys) { return make_fim(sys, 0.1); };
const auto fim_start_a = [](const auto& sys) { return make_fim(sys, 0.1, 0.5, FimStart::A); };

}  // namespace

// Each family on one constrained model, and GF-CP without constraints, within the bound (on the
// heap: test_run_time_sizes.cpp says where). A (method, model) pair compiles the method twice, at
// fixed and at run-time size, so each pair here is one that adds something.
TEST(RunTimeSizes, GfAndGfSymVerticalDisk) {
  const models::VerticalDisk disk;
  const auto x0 = disk.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_vertical_disk", disk, gf, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_alpha03_vertical_disk", disk, gf_off_centre, x0.q,
                                                              x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_sym_vertical_disk", disk, gf_sym, x0.q, x0.v);
}

TEST(RunTimeSizes, GfCpKnifeEdge) {
  const models::KnifeEdge knife;
  const auto x0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_knife_edge", knife, gf_cp, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_sym_knife_edge", knife, gf_cp_sym, x0.q, x0.v);
}

TEST(RunTimeSizes, FimKnifeEdge) {
  const models::KnifeEdge knife;
  const auto x0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("fim_knife_edge", knife, fim, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("fim_start_a_knife_edge", knife, fim_start_a, x0.q, x0.v);
}

TEST(RunTimeSizes, GfCpWithoutConstraints) {
  // m = 0 known only at run time: no constraint force, P* = I (the method is DEL here). GF-CP has
  // every block that m sizes: GF's constraint forces and the projection P* that FIM uses too.
  const models::Pendulum pendulum;
  const auto x0 = pendulum.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_pendulum", pendulum, gf_cp, x0.q, x0.v);
}
