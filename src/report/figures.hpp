#pragma once
// Figure specifications, drawn by scripts/plot.py (matplotlib) from CSV files; see
// docs/decisions.md for why matplotlib.
#include <string>
#include <vector>

#include "dalembert/io/trajectory.hpp"

namespace dalembert::report {

struct Series {
  std::string csv;       ///< path of the CSV file
  std::string x, y;      ///< column names
  std::string label;
  std::string style = "line";  ///< line, dashed, markers, line+markers
  std::string transform = "";  ///< "", "abs" or "envelope"
  std::string color = "";      ///< "" (automatic) or a matplotlib colour
  std::string z = "";          ///< heat maps: the column of the values on the (x, y) grid
};

struct Figure {
  std::string stem;  ///< output path without extension (.png and .svg are written)
  std::string title, xlabel, ylabel;
  std::string xscale = "linear", yscale = "linear";
  bool aspect_equal = false;
  std::vector<Series> series;
  std::string kind = "lines";  ///< "lines", or "heatmap": one series, z on a grid of (x, y), with a colour bar
};

/// Writes all figures (one Python process). Returns why they could not be drawn (a missing
/// matplotlib, a full disk), empty if they were: a figure that fails is a warning, its data kept.
[[nodiscard]] std::string render(const std::vector<Figure>& figures, const std::string& work_dir);

/// `text` as matplotlib shows it literally: its $ (which would start mathematical text) escaped.
/// For text of the user's (a model file's name) in titles and labels.
std::string plain_text(const std::string& text);

/// Writes a table as CSV atomically.
void write_table(const std::string& path, const Trajectory& table);

/// The plotting script: $DALEMBERT_PLOT_SCRIPT, or plot.py of dalembert's data (support/data.hpp);
/// empty if there is none.
std::string plot_script();

}  // namespace dalembert::report
