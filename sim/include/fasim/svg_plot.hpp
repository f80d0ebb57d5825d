// A small SVG chart writer: lines and scatter points on linear or log axes,
// with gridlines, tick labels in bytes / SI / plain numbers, a legend, an
// optional second y axis and labelled points. Self-contained output (no
// fonts, scripts or styles from outside), 800x500 with a viewBox, so it reads
// in a browser, a Markdown page or the docs at any width.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fasim {

/// @brief How tick labels are written: plain numbers ("512", "16K", "10⁶"),
/// bytes in binary units ("256 KiB", "1 GiB") or SI prefixes ("100 T").
enum class TickStyle { number, bytes, si };

/// @brief One axis: its title (with units) and its scale.
struct Axis {
  std::string title;
  bool log = false;
  int log_base = 10;        ///< 10: ticks at decades; 2: at powers of two (sizes, bytes)
  TickStyle style = TickStyle::number;
  bool from_zero = false;   ///< linear only: start the axis at 0
};

/// @brief A tick: its value and its label.
struct Tick {
  double value = 0;
  std::string label;
};

/// @brief The shown range of an axis (in data units) and its ticks.
struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<Tick> ticks;

  /// @brief Where v lies between lo (0) and hi (1); log scales in log space.
  double fraction(double v) const;
};

/// @brief The scale that shows data in [lo, hi] (a little padding on log
/// axes), with ticks: decades or powers of two on log axes, 1-2-5 steps on
/// linear ones, 2 to about 9 of them, increasing.
Scale make_scale(const Axis& axis, double lo, double hi);

/// @brief A tick label in a style, e.g. (1048576, bytes) -> "1 MiB".
std::string tick_label(double v, TickStyle style);

/// @brief One named series: a line through its points and/or markers at them.
struct Series {
  std::string name;               ///< legend text
  std::string color = "#1f77b4";
  std::vector<std::pair<double, double>> points;  ///< (x, y), drawn in this order
  bool line = true;               ///< a <polyline> through the points
  bool markers = true;            ///< a circle at each point
  std::string dash{};             ///< stroke-dasharray, "" for solid
  bool right_axis = false;        ///< y on the second axis
};

/// @brief A point marked with a text label, e.g. the ridge of a roofline.
struct PointLabel {
  double x = 0, y = 0;
  std::string text;
};

/// @brief A whole chart.
struct Chart {
  std::string title, subtitle;
  Axis x, y;
  std::optional<Axis> y2;  ///< a second y axis on the right, for right_axis series
  std::vector<Series> series;
  std::vector<PointLabel> labels;
};

/// @brief The chart as an SVG document. Points that a log axis cannot show
/// (<= 0) or that are not finite are left out.
std::string render_svg(const Chart& chart);

/// @brief Escapes & < > " ' for XML text and attributes.
std::string xml_escape(std::string_view s);

}  // namespace fasim
