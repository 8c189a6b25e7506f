#include "report/report.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "dalembert/solve/step_limits.hpp"
#include "analysis/study.hpp"
#include "cli/output.hpp"
#include "support/output_file.hpp"
#include "dalembert/io/errors.hpp"

namespace dalembert::report {

namespace fs = std::filesystem;

std::string format(double x, int digits) {
  char buf[64];
  if (x == 0.0 || (std::abs(x) >= 1e-3 && std::abs(x) < 1e5))
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  else
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  return buf;
}

namespace {

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += table[(v >> s) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += c;
    }
  }
  return out;
}

/// A table cell of Markdown: '|' would end the cell.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string verdict_text(const ExperimentResult& r) {
  return r.error ? "error" : to_string(r.outcome.verdict);
}

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return buf;
}

/// What the report is and how to read it, the same in both formats.
const std::vector<std::string>& introduction() {
  static const std::vector<std::string> paragraphs = {
      "Each experiment reruns a numerical experiment of one of the papers listed under References, with the "
      "paper's data where it gives them and ours where it does not (the data line says which), states the "
      "paper's claim, our numbers and a verdict on the claim.",
      "Verdicts: supported: our numbers show what the paper claims. Differs: the claim holds in substance but "
      "our numbers differ from the paper's in a way the explanation gives (a misprint, unstated data, another "
      "reading of the method). Not supported: our numbers contradict the claim, for the reason given. Error: "
      "the experiment could not run.",
      "In the tables, 'independent check' is a value computed before the method was implemented, by a "
      "separate implementation of the paper's equations (plain numpy, scipy and sympy), and 'paper' a value "
      "printed in the paper. A warning of a run is a known failure mode of a method detected while it ran "
      "(docs/methods.md, 'Failure modes and the run's warnings').",
  };
  return paragraphs;
}

/// The papers the experiments cite, by the keys they use.
const std::vector<std::string>& references() {
  static const std::vector<std::string> entries = {
      "[CM01] J. Cortés, S. Martínez, Non-holonomic integrators, Nonlinearity 14 (2001) 1365-1392, "
      "doi:10.1088/0951-7715/14/5/322.",
      "[dLMS04] M. de León, D. Martín de Diego, A. Santamaría-Merino, Geometric integrators and nonholonomic "
      "mechanics, J. Math. Phys. 45 (2004) 1042-1064, doi:10.1063/1.1644325.",
      "[FIM08] S. Ferraro, D. Iglesias, D. Martín de Diego, Momentum and energy preserving integrators for "
      "nonholonomic dynamics, Nonlinearity 21 (2008) 1911-1928, doi:10.1088/0951-7715/21/8/009.",
      "[ASMM22] A. Anahory Simoes, J. C. Marrero, D. Martín de Diego, Exact discrete Lagrangian mechanics for "
      "nonholonomic mechanics, Numer. Math. 151 (2022) 49-98, doi:10.1007/s00211-022-01283-2.",
      "[AS21] A. Anahory Simoes, Geometric and numerical analysis of nonholonomic systems, PhD thesis, "
      "Universidad Autónoma de Madrid (ICMAT), 2021.",
      "[BFG13] N. Borda, J. Fernández, S. Grillo, Discrete second order constrained Lagrangian systems: first "
      "results, J. Geom. Mech. 5 (2013) 381-397, doi:10.3934/jgm.2013.5.381.",
      "[MP06] R. McLachlan, M. Perlmutter, Integrators for nonholonomic mechanical systems, J. Nonlinear Sci. 16 "
      "(2006) 283-328, doi:10.1007/s00332-005-0698-1.",
      "[MV20] K. Modin, O. Verdier, What makes nonholonomic integrators work?, Numer. Math. 145 (2020) 405-435, "
      "doi:10.1007/s00211-020-01126-y.",
      "[Jay03] L. O. Jay, Solution of index 2 implicit differential-algebraic equations by Lobatto Runge-Kutta "
      "methods, BIT 43 (2003) 93-106, doi:10.1023/A:1023696822355.",
      "[MPRS07] J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L. Schwab, Linearized dynamics equations for the "
      "balance and steer of a bicycle: a benchmark and review, Proc. R. Soc. A 463 (2007) 1955-1982, "
      "doi:10.1098/rspa.2007.1857.",
  };
  return entries;
}

void write_markdown(const std::vector<ExperimentResult>& results, const fs::path& out, bool quick) {
  std::ostringstream md;
  md << "# dalembert: reproduction of the papers' experiments\n\n"
     << "Generated " << timestamp() << " by `dalembert reproduce`" << (quick ? " --quick (reduced step counts)" : "")
     << ".\n\n";
  for (const auto& paragraph : introduction()) md << paragraph << "\n\n";
  md << "| experiment | paper | figure | verdict |\n|---|---|---|---|\n";
  for (const auto& r : results)
    md << "| [" << r.experiment->title << "](#" << r.experiment->name << ") | " << r.experiment->paper << " | "
       << r.experiment->figure << " | " << verdict_text(r) << " |\n";
  for (const auto& r : results) {
    const auto& e = *r.experiment;
    md << "\n<a id=\"" << e.name << "\"></a>\n## " << e.title << "\n\n"
       << "- **experiment**: `" << e.name << "` (" << format(r.seconds, 2) << " s)\n"
       << "- **paper**: " << e.paper << "\n- **figure**: " << e.figure << "\n- **system**: " << e.system
       << "\n- **methods**: " << e.methods << "\n- **data**: " << e.data << "\n- **claim**: " << e.claim << "\n"
       << "- **verdict**: **" << verdict_text(r) << "** — " << r.outcome.explanation << "\n";
    for (const auto& w : r.outcome.warnings) md << "- **warning of a run**: " << w << "\n";
    md << "\n";
    if (!r.outcome.numbers.empty()) {
      md << "| quantity | ours | for comparison |\n|---|---|---|\n";
      for (const auto& n : r.outcome.numbers)
        md << "| " << md_cell(n.quantity) << " | " << md_cell(n.value) << " | " << md_cell(n.note) << " |\n";
      md << "\n";
    }
    for (const auto& f : r.outcome.figures) {
      const auto rel = fs::relative(fs::path(f.stem + ".png"), out);
      md << "![" << f.title << "](" << rel.string() << ")\n\n";
    }
  }
  md << "\n## References\n\n";
  for (const auto& entry : references()) md << "- " << entry << "\n";
  support::write_file("--out", (out / "report.md").string(), md.str());
}

void write_html(const std::vector<ExperimentResult>& results, const fs::path& out, bool quick) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<title>dalembert: reproduction report</title>\n<style>\n"
    << "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45;color:#222}\n"
    << "table{border-collapse:collapse;margin:0.6rem 0}td,th{border:1px solid #ccc;padding:0.25rem 0.6rem;text-align:left}\n"
    << "th{background:#f3f3f3}.supported{color:#17692a;font-weight:600}.differs{color:#9a6700;font-weight:600}\n"
    << ".not-supported,.error{color:#b00020;font-weight:600}img{max-width:100%;border:1px solid #eee;margin:0.4rem 0}\n"
    << "section{border-top:1px solid #ddd;margin-top:2rem}dt{font-weight:600;float:left;width:7rem}dd{margin-left:7.5rem}\n"
    << "</style></head><body>\n<h1>dalembert: reproduction of the papers' experiments</h1>\n<p>Generated "
    << timestamp() << " by <code>dalembert reproduce</code>" << (quick ? " --quick (reduced step counts)" : "")
    << ".</p>\n";
  for (const auto& paragraph : introduction()) h << "<p>" << html_escape(paragraph) << "</p>\n";
  h << "<table><tr><th>experiment</th><th>paper</th><th>figure</th><th>verdict</th></tr>\n";
  const auto css = [](const std::string& v) {
    std::string c = v;
    for (auto& ch : c)
      if (ch == ' ') ch = '-';
    return c;
  };
  for (const auto& r : results)
    h << "<tr><td><a href=\"#" << r.experiment->name << "\">" << html_escape(r.experiment->title) << "</a></td><td>"
      << html_escape(r.experiment->paper) << "</td><td>" << html_escape(r.experiment->figure) << "</td><td class=\""
      << css(verdict_text(r)) << "\">" << verdict_text(r) << "</td></tr>\n";
  h << "</table>\n";
  for (const auto& r : results) {
    const auto& e = *r.experiment;
    h << "<section id=\"" << e.name << "\"><h2>" << html_escape(e.title) << "</h2>\n<dl>"
      << "<dt>experiment</dt><dd><code>" << e.name << "</code> (" << format(r.seconds, 2) << " s)</dd>"
      << "<dt>paper</dt><dd>" << html_escape(e.paper) << "</dd><dt>figure</dt><dd>" << html_escape(e.figure)
      << "</dd><dt>system</dt><dd>" << html_escape(e.system) << "</dd><dt>methods</dt><dd>" << html_escape(e.methods)
      << "</dd><dt>data</dt><dd>" << html_escape(e.data) << "</dd><dt>claim</dt><dd>" << html_escape(e.claim)
      << "</dd><dt>verdict</dt><dd><span class=\"" << css(verdict_text(r)) << "\">" << verdict_text(r) << "</span> — "
      << html_escape(r.outcome.explanation) << "</dd>";
    for (const auto& w : r.outcome.warnings) h << "<dt>warning of a run</dt><dd>" << html_escape(w) << "</dd>";
    h << "</dl>\n";
    if (!r.outcome.numbers.empty()) {
      h << "<table><tr><th>quantity</th><th>ours</th><th>for comparison</th></tr>\n";
      for (const auto& n : r.outcome.numbers)
        h << "<tr><td>" << html_escape(n.quantity) << "</td><td>" << html_escape(n.value) << "</td><td>"
          << html_escape(n.note) << "</td></tr>\n";
      h << "</table>\n";
    }
    for (const auto& f : r.outcome.figures) {
      const fs::path png(f.stem + ".png");
      if (fs::exists(png))
        h << "<figure><img alt=\"" << html_escape(f.title) << "\" src=\"data:image/png;base64," << base64(slurp(png))
          << "\"></figure>\n";
    }
    h << "</section>\n";
  }
  h << "<section><h2>References</h2><ul>";
  for (const auto& entry : references()) h << "<li>" << html_escape(entry) << "</li>";
  h << "</ul></section>\n</body></html>\n";
  support::write_file("--out", (out / "report.html").string(), h.str());
}

}  // namespace

std::vector<ExperimentResult> reproduce(const std::vector<std::string>& only, const std::string& out_dir, bool quick,
                                        bool figures, unsigned threads, std::ostream& progress) {
  std::vector<const Experiment*> selected;
  for (const auto& name : only) {
    const Experiment* found = nullptr;
    for (const auto& e : experiments())
      if (e.name == name) found = &e;
    if (!found) {
      std::string known;
      for (const auto& e : experiments()) known += (known.empty() ? "" : ", ") + e.name;
      throw BadInput("unknown experiment '" + name + "' (known: " + known + ")");
    }
    selected.push_back(found);
  }
  if (only.empty())
    for (const auto& e : experiments()) selected.push_back(&e);

  support::prepare_directory("--out", out_dir);
  const fs::path out = fs::absolute(out_dir);
  // The experiments are independent: `threads` workers each take the next one in report order, and
  // the report lists them in that order whatever order they finish in. The first interruption stops
  // every worker from starting another experiment and is rethrown once they have all finished.
  std::vector<ExperimentResult> results(selected.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex finished;  // guards `done`, `interruption` and the progress stream
  std::exception_ptr interruption;
  const auto begin = std::chrono::steady_clock::now();
  const auto run_one = [&](std::size_t i) {
    const Experiment* e = selected[i];
    const auto start = std::chrono::steady_clock::now();
    ExperimentResult r{e, {}, false, 0.0};
    const fs::path dir = out / e->name;
    try {
      fs::create_directories(dir);
      analysis::take_warnings();  // only this experiment's (they are kept per thread)
      r.outcome = e->run(Context{dir.string(), quick});
      r.outcome.warnings = analysis::take_warnings();
      if (!figures) r.outcome.figures.clear();
      if (const std::string failure = render(r.outcome.figures, dir.string()); !failure.empty())
        r.outcome.warnings.push_back(failure);
    } catch (const Interrupted&) {
      const std::lock_guard lock(finished);
      if (!interruption) interruption = std::current_exception();
      next = selected.size();
      return;
    } catch (const std::exception& ex) {
      r.error = true;
      r.outcome.explanation = std::string("the experiment failed: ") + ex.what();
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::lock_guard lock(finished);
    ++done;
    progress << "[" << i + 1 << "/" << selected.size() << "] " << e->name << " ... " << verdict_text(r) << " ("
             << format(r.seconds, 2) << " s";
    if (!r.outcome.warnings.empty()) progress << ", " << r.outcome.warnings.size() << " warning(s) of its runs";
    if (done < selected.size()) {  // time left, at the mean time per experiment so far
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      const double left = elapsed / static_cast<double>(done) * static_cast<double>(selected.size() - done);
      const long rounded = std::lround(std::ceil(left < 90 ? left : left / 60));
      progress << "; about " << rounded << (left < 90 ? " s" : " min") << " left";
    }
    progress << ")" << std::endl;
    results[i] = std::move(r);
  };
  const auto worker = [&] {
    for (std::size_t i; (i = next++) < selected.size();) run_one(i);
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned w = 1; w < std::min<std::size_t>(threads, selected.size()); ++w) workers.emplace_back(worker);
    worker();
  }
  if (interruption) std::rethrow_exception(interruption);
  write_markdown(results, out, quick);
  write_html(results, out, quick);
  progress << "report: " << (out / "report.md").string() << " and " << (out / "report.html").string() << "\n";
  return results;
}

}  // namespace dalembert::report
