// One method layer for every size, the momentum methods: the generating-function integrators
// (GF-α, GF-sym-α, GF-CP-α) and FIM on a model of run-time size (tests/at_run_time.hpp, within a
// bound and on the heap) give the steps they give on the compiled fixed-size model.
#include <gtest/gtest.h>

#include "same_steps_at_run_time.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
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

/// dLMS Example 4.2: L = ½|q̇|² − (x² + y²), ż = y ẋ.
models::NonholonomicParticle example_particle() {
  models::NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  return p;
}
const Vecd<3> particle_q0(1, 0.5, 0), particle_v0(0.3, 0.7, 0.15);

}  // namespace

TEST(RunTimeSizes, GfParticleAndKnifeEdge) {
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_particle", example_particle(), gf, particle_q0,
                                                              particle_v0);
  const models::KnifeEdge knife;
  const auto x0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_knife_edge", knife, gf, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_alpha03_knife_edge", knife, gf_off_centre, x0.q, x0.v);
}

TEST(RunTimeSizes, GfChaplyginSleighAndVerticalDisk) {
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_sleigh", sleigh, gf, s0.q, s0.v);
  const models::VerticalDisk disk;
  const auto d0 = disk.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_vertical_disk", disk, gf, d0.q, d0.v);
}

TEST(RunTimeSizes, GfSymKnifeEdgeAndSleigh) {
  const models::KnifeEdge knife;
  const auto k0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_sym_knife_edge", knife, gf_sym, k0.q, k0.v);
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_sym_sleigh", sleigh, gf_sym, s0.q, s0.v);
}

TEST(RunTimeSizes, GfCpParticleKnifeEdgeAndSleigh) {
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_cp_particle", example_particle(), gf_cp, particle_q0,
                                                           particle_v0);
  const models::KnifeEdge knife;
  const auto k0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_knife_edge", knife, gf_cp, k0.q, k0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_sym_knife_edge", knife, gf_cp_sym, k0.q, k0.v);
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("gf_cp_sleigh", sleigh, gf_cp, s0.q, s0.v);
}

TEST(RunTimeSizes, FimParticleAndKnifeEdge) {
  test::expect_same_steps_at_run_time<test::Storage::bounded>("fim_particle", example_particle(), fim, particle_q0,
                                                              particle_v0);
  const models::KnifeEdge knife;
  const auto x0 = knife.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("fim_knife_edge", knife, fim, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::heap>("fim_start_a_knife_edge", knife, fim_start_a, x0.q, x0.v);
}

TEST(RunTimeSizes, FimChaplyginSleighAndVerticalDisk) {
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  // 100 steps: beyond them FIM's period-2 mode grows on the sleigh at h = 0.1 (|p⁺ − p⁻| ≈ 2 by
  // step 180) and amplifies any round-off, a perturbation of q0 by 1e-16 as much (1e-10 by step 200).
  test::expect_same_steps_at_run_time<test::Storage::bounded>("fim_sleigh", sleigh, fim, s0.q, s0.v, 100);
  const models::VerticalDisk disk;
  const auto d0 = disk.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::heap>("fim_vertical_disk", disk, fim, d0.q, d0.v);
}

TEST(RunTimeSizes, GfGfCpAndFimWithoutConstraints) {
  // m = 0 known only at run time: no constraint force, P* = I (every method is DEL here).
  const models::Pendulum pendulum;
  const auto x0 = pendulum.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_pendulum", pendulum, gf_off_centre, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("gf_cp_pendulum", pendulum, gf_cp, x0.q, x0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("fim_pendulum", pendulum, fim, x0.q, x0.v);
}
