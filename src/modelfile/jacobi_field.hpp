#pragma once
// Jacobi fields of a model file at its run-time size (dalembert/diagnostics/jacobi_fields.hpp,
// docs/jacobi-fields.md): the variation W(t) of the trajectory from (q0, v0) in the direction
// (δq0, δv0) tangent to the constraint, with Ẇ, the momentum's variation δp and the linearised
// constraint along it; the nonholonomic exponential map exp_h(v0) = q(h) and its differential,
// whose columns are the fields from (0, w), w ∈ D(q0); and the conjugate points of q0 along its
// trajectory, where that differential loses rank ([AS21] §4.3, ch. 5, ch. 9); and the
// Maupertuis–Jacobi principle, trajectories of energy e as reparametrised trajectories of the
// Jacobi metric (e − V) G (ch. 5.3).
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include "dalembert/io/run_options.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

/// One row per sample time; columns are the coordinates in the file's order.
struct JacobiField {
  std::vector<double> t;
  Eigen::MatrixXd q, v;        ///< the trajectory c(t), ċ(t)
  Eigen::MatrixXd W, W_dot;    ///< the field and its derivative
  Eigen::MatrixXd dp;          ///< δp = ∂²L/∂v∂q W + ∂²L/∂v² Ẇ, the momentum's variation
  std::vector<double> linearised_constraint;  ///< |M(q)Ẇ + (∂M/∂q·W) q̇|_inf, zero up to the tolerance
};

/// The Jacobi field along the file's trajectory from `init` (the file's initial data where it gives
/// none; v0 in D(q0), or projected with init.project_v0) with initial variation (dq0, dv0), at
/// `times` (finite, increasing, ≥ 0), integrated to the absolute and relative `tolerance`
/// (1e-14 ≤ tolerance < 1e-2). The variation must satisfy the linearised constraint
/// M(q0)δv0 + (∂M/∂q·δq0) v0 = 0 to 1e-9 relative: the field is then a variation among
/// nonholonomic trajectories. With project_dv0, dv0 is first replaced by the nearest variation that
/// does, in the kinetic metric ∂²L/∂v² (as project_v0 projects v0). Throws BadInput naming the
/// value at fault, and NumericalFailure where the integration cannot reach a sample time. A
/// non-zero *stop (read at every substep) ends it with Interrupted.
JacobiField jacobi_field(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values, InitialData init,
                         const Eigen::VectorXd& dq0, const Eigen::VectorXd& dv0, const std::vector<double>& times,
                         bool project_dv0 = false, double tolerance = 1e-12, const std::atomic<int>* stop = nullptr);

/// exp_h(v0) = q(h) from (q0, v0) and its differential along directions w ∈ D(q0):
/// T_{v0} exp_h · w = W(h) of the Jacobi field from (0, w). With it, the pulled-back metric
/// G0 = exp_h^* G of the kinetic metric G = ∂²L/∂v² (thesis §5.2, G0 = (exp^nh)^*(i^*g) for h = 1),
/// and the two sides of the Gauss condition (thesis Def. 5.2.5), G0(v0)(v0, w) = G0(0)(v0, w) for
/// every w, which holds where radial trajectories are geodesics of G0 (Theorem 5.2.9). For a
/// kinetic model (no potential, no force) T_0 exp_h = h · id on D(q0), so G0(0) = h² G(q0) there;
/// with a potential or a force, `initial` is not G0(0) and the comparison is not the condition.
struct ExponentialMap {
  Eigen::VectorXd q, v;          ///< q(h), q̇(h)
  Eigen::MatrixXd directions;    ///< n × j: the directions w (columns), given or an orthonormal basis of D(q0)
  Eigen::MatrixXd differential;  ///< n × j: T_{v0} exp_h · w, column by column
  Eigen::MatrixXd metric;        ///< j × j: G0(v0)(w_a, w_b) = (T exp_h w_a)ᵀ G(q(h)) (T exp_h w_b)
  Eigen::VectorXd radial;        ///< j: G0(v0)(v0, w) = (T exp_h v0)ᵀ G(q(h)) (T exp_h w)
  Eigen::VectorXd initial;       ///< j: h² v0ᵀ G(q0) w, which `radial` equals where the Gauss condition holds
};

/// The exponential map at v0 = init.v0 ∈ D(q0) (the file's initial data where init gives none;
/// projected with init.project_v0) over time h > 0, and its differential along the columns of
/// `directions`, each in D(q0) (an empty matrix: an orthonormal basis of D(q0)). Throws BadInput
/// naming the value at fault.
ExponentialMap exponential_map(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                               InitialData init, double h, const Eigen::MatrixXd& directions = {},
                               double tolerance = 1e-12, const std::atomic<int>* stop = nullptr);

/// A point q(t) conjugate to q0 along the trajectory: the fields from (0, w) with w in the span of
/// `directions` vanish there.
struct ConjugatePoint {
  double t = 0.0;
  int multiplicity = 0;               ///< the dimension of that span
  Eigen::MatrixXd directions;         ///< n × multiplicity, orthonormal, in D(q0)
  double smallest_singular_value = 0; ///< of the differential restricted to D(q0), at t
  double relative_size = 0;           ///< that value over the largest singular value met along the run
};

/// The conjugate points of q0 along the trajectory from `init` in (0, t_end]: the differential of
/// the exponential map restricted to D(q0), sampled at `samples` equal intervals; each local minimum
/// of its smallest singular value is refined by golden-section search to |Δt| ≤ 1e-12 (1 + t) and
/// is a conjugate point where it falls below 1e-6 of the largest singular value met. A conjugate
/// point closer than two samples to another is missed: sample finer.
std::vector<ConjugatePoint> conjugate_points(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                             InitialData init, double t_end, int samples = 400,
                                             double tolerance = 1e-12, const std::atomic<int>* stop = nullptr);

/// Both sides of the nonholonomic Maupertuis–Jacobi principle (dalembert/diagnostics/
/// maupertuis_jacobi.hpp), one row per parameter s_i; columns are the coordinates.
struct MaupertuisJacobi {
  std::vector<double> s, h;  ///< the parameters and h(s_i) = ∫ (e − V(c_P)) ds
  Eigen::MatrixXd q;         ///< c_P(s_i), the trajectory of energy e
  Eigen::MatrixXd q_jacobi;  ///< c^e_Q(h(s_i)), the Jacobi metric's trajectory
};

/// The principle for a model file whose L is of the form ½ vᵀG(q)v − V(q) (without a force)
/// from q0 = init.q0 along the direction init.v0 ∈ D(q0) (the file's where init gives none;
/// projected with init.project_v0), scaled to the energy e > V(q0), at the increasing parameters
/// `s` (≥ 0). Throws BadInput naming the value at fault.
MaupertuisJacobi maupertuis_jacobi(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                   InitialData init, double energy, const std::vector<double>& s,
                                   double tolerance = 1e-12, const std::atomic<int>* stop = nullptr);

/// The nonholonomic connection ∇^nh of a mechanical model file (L = ½ vᵀG(q)v − V(q)) at q (thesis
/// Def. 5.1.3, (6.2.24)): with the G-orthogonal projector P' = G⁻¹Mᵀ(MG⁻¹Mᵀ)⁻¹M onto D^⊥ and
/// P = I − P', its Christoffel symbols Γ^k_ij = Γ^l_ij(g) P^k_l + ∂_i P'^k_j + P'^l_j Γ^k_il(g),
/// its torsion T^k_ij = Γ^k_ij − Γ^k_ji and its curvature
/// R^l_ijk = ∂_iΓ^l_jk − ∂_jΓ^l_ik + Γ^m_jk Γ^l_im − Γ^m_ik Γ^l_jm, all exact (dual numbers).
struct NonholonomicConnection {
  std::vector<Eigen::MatrixXd> christoffel;            ///< christoffel[k](i, j) = Γ^k_ij
  std::vector<Eigen::MatrixXd> torsion;                ///< torsion[k](i, j) = T^k_ij
  std::vector<std::vector<Eigen::MatrixXd>> curvature;  ///< curvature[l][i](j, k) = R^l_ijk
};

/// The connection at q (n entries). Throws BadInput naming the value at fault, also for a file that
/// is not mechanical.
NonholonomicConnection nonholonomic_connection(std::shared_ptr<const LoadedModel> model,
                                               const ParameterOverrides& values, const Eigen::VectorXd& q);

/// The residual of the nonholonomic Jacobi equation (thesis (6.2.22)) of a mechanical model file
/// without force, at (q, v) with v ∈ D(q), along a field W with derivatives Ẇ and Ẅ:
///   Ẅ^k + q̇^i q̇^j W^l ∂_lΓ^k_ij + q̇^j Ẇ^i (Γ^k_ij + Γ^k_ji) + W^l ∂_l(P G⁻¹∇V)^k,
/// zero along a Jacobi field (the linearisation of q̈ + Γ(q̇, q̇) = −P G⁻¹∇V). Without W_ddot, Ẅ is
/// that of the linearised Lagrange–d'Alembert dynamics at (q, v; W, Ẇ), and the residual is the
/// difference between the two linearisations. Exact (dual numbers). Throws BadInput when v is not
/// in D(q), (W, Ẇ) is not tangent to the constraint, or the file is not mechanical or has a force.
Eigen::VectorXd jacobi_equation_residual(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& W,
                                         const Eigen::VectorXd& W_dot,
                                         const std::optional<Eigen::VectorXd>& W_ddot = std::nullopt);

}  // namespace dalembert::modelfile
