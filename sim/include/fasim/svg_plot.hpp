// A small SVG chart writer: lines and scatter points on linear or log axes,
// with gridlines, tick labels in bytes / SI / plain numbers, a legend, an
// optional second y axis and labelled points. Self-contained output (no
// fonts, scripts or styles from outside), 800x500 with a viewBox, so it reads
// in a browser, a Markdown page or the docs at any width. Several charts can
// be stacked into one SVG (panels), and a chart can shade the bands around
// y = x where a prediction is within a factor of a measurement.
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
  std::string title;  ///< with units, e.g. "HBM traffic (bytes)"
  bool log = false;  ///< logarithmic scale
  int log_base = 10;        ///< 10: ticks at decades; 2: at powers of two (sizes, bytes)
  TickStyle style = TickStyle::number;  ///< how tick labels are written
  bool from_zero = false;   ///< linear only: start the axis at 0
};

/// @brief A tick: its value and its label.
struct Tick {
  double value = 0;  ///< where, in data units
  std::string label;  ///< what it reads
};

/// @brief The shown range of an axis (in data units) and its ticks.
struct Scale {
  double lo = 0;  ///< data value at the low end
  double hi = 1;  ///< data value at the high end
  bool log = false;  ///< logarithmic scale
  std::vector<Tick> ticks;  ///< increasing

  /// @brief Where v lies between lo (0) and hi (1); log scales in log space.
  double fraction(double v) const;
};

/// @brief The scale that shows data in [lo, hi] (a little padding on log
/// axes), with ticks: decades or powers of two on log axes, 1-2-5 steps on
/// linear ones, 2 to about 9 of them, increasing.
Scale make_scale(const Axis& axis, double lo, double hi);

/// @brief A tick label in a style, e.g. (1048576, bytes) -> "1 MiB".
std::string tick_label(double v, TickStyle style);

/// @brief The shape drawn at each point of a series.
enum class Marker { circle, square, triangle, diamond };

/// @brief One named series: a line through its points and/or markers at them.
struct Series {
  std::string name;               ///< legend text
  std::string color = "#1f77b4";  ///< of its line and markers
  std::vector<std::pair<double, double>> points;  ///< (x, y), drawn in this order
  bool line = true;               ///< a line through the points
  bool markers = true;            ///< a circle at each point
  std::string dash{};             ///< stroke-dasharray, "" for solid
  bool right_axis = false;        ///< y on the second axis
  Marker marker = Marker::circle; ///< shape of the markers
  double opacity = 1;             ///< of the markers (below 1 shows overlaps)
};

/// @brief The band factor^-1 x <= y <= factor x, shaded: where y is within a
/// factor of x (on log axes, a stripe along the diagonal).
struct RatioBand {
  double factor = 2;  ///< > 1, e.g. 1.1 for "within 10%"
  std::string label;  ///< its legend entry, e.g. "within 10%"
};

/// @brief A point marked with a text label, e.g. the ridge of a roofline.
struct PointLabel {
  double x = 0;  ///< where, in data units
  double y = 0;  ///< where, in data units (left axis)
  std::string text;  ///< the label
};

/// @brief A whole chart.
struct Chart {
  std::string title;     ///< one line, bold, at the top
  std::string subtitle;  ///< wrapped below the title: what the data is, what was held fixed
  Axis x;  ///< the horizontal axis
  Axis y;  ///< the vertical axis, on the left
  std::optional<Axis> y2;  ///< a second y axis on the right, for right_axis series
  std::vector<Series> series;  ///< drawn in order, listed in the legend
  std::vector<PointLabel> labels;  ///< points marked with text
  std::vector<RatioBand> bands;  ///< shaded around y = x, widest first is best
  bool same_scale = false;       ///< x and y show the same range (a y = x chart)
};

/// @brief The chart as an SVG document. Points that a log axis cannot show
/// (<= 0) or that are not finite are left out.
std::string render_svg(const Chart& chart);

/// @brief Charts stacked top to bottom in one SVG document, 800 wide and 500
/// high each. One chart gives what render_svg gives.
std::string render_svg(const std::vector<Chart>& panels);

/// @brief Escapes & < > " ' for XML text and attributes.
std::string xml_escape(std::string_view s);

}  // namespace fasim
