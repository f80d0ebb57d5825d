#include "fasim/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fasim {

namespace {

constexpr double kWidth = 800, kHeight = 500;
constexpr double kCharWidth = 7.8;  // average advance of a 14 px sans-serif character, for layout
constexpr const char* kFonts = "DejaVu Sans, Helvetica, Arial, sans-serif";

std::string fmt(const char* f, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string px(double v) { return fmt("%.1f", v); }

std::string superscript(int e) {
  static const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string out = e < 0 ? "⁻" : "";
  for (char c : std::to_string(std::abs(e))) out += digits[c - '0'];
  return out;
}

// 1-2-5 steps: the "nice" number nearest above x/1.5.
double nice_step(double x) {
  const double e = std::pow(10.0, std::floor(std::log10(x)));
  const double f = x / e;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

void linear_ticks(Scale& s, TickStyle style, bool snap) {
  double unit = 1;  // bytes: steps of whole KiB, MiB, ... so labels read "50 MiB", not "52.4 MB"
  if (style == TickStyle::bytes)
    while (std::max(std::abs(s.lo), std::abs(s.hi)) / unit >= 1024) unit *= 1024;
  const double step = nice_step((s.hi - s.lo) / unit / 5) * unit;
  if (snap) {
    s.lo = std::floor(s.lo / step + 1e-9) * step;
    s.hi = std::ceil(s.hi / step - 1e-9) * step;
  }
  for (double i = std::ceil(s.lo / step - 1e-9); i * step <= s.hi * (1 + 1e-12) + 1e-300; ++i)
    s.ticks.push_back({i * step, ""});
}

std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {  // split after "; " or spaces, whichever keeps lines short
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) { lo = std::min(lo, v), hi = std::max(hi, v); }
  bool empty() const { return lo > hi; }
};

bool usable(const Axis& a, double v) { return std::isfinite(v) && (!a.log || v > 0); }

// A marker of radius about r centred on (x, y), filled by its group.
std::string marker(Marker m, double x, double y, double r) {
  switch (m) {
    case Marker::square:
      return "<rect x=\"" + px(x - r * 0.85) + "\" y=\"" + px(y - r * 0.85) + "\" width=\"" + px(r * 1.7) +
             "\" height=\"" + px(r * 1.7) + "\"/>";
    case Marker::triangle:
      return "<polygon points=\"" + px(x) + "," + px(y - r * 1.15) + " " + px(x + r) + "," + px(y + r * 0.7) + " " +
             px(x - r) + "," + px(y + r * 0.7) + "\"/>";
    case Marker::diamond:
      return "<polygon points=\"" + px(x) + "," + px(y - r * 1.2) + " " + px(x + r) + "," + px(y) + " " + px(x) + "," +
             px(y + r * 1.2) + " " + px(x - r) + "," + px(y) + "\"/>";
    case Marker::circle: break;
  }
  return "<circle cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"" + px(r) + "\"/>";
}

// The chart's drawing, without the enclosing <svg> element; ids end in `id`.
std::string chart_body(const Chart& c, const std::string& id);

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

double Scale::fraction(double v) const {
  if (log) return (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo));
  return (v - lo) / (hi - lo);
}

std::string tick_label(double v, TickStyle style) {
  const double a = std::abs(v);
  if (a == 0) return style == TickStyle::bytes ? "0 B" : "0";
  if (style == TickStyle::bytes || style == TickStyle::si) {
    static const char* bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    static const char* dec[] = {"", " k", " M", " G", " T", " P", " E"};
    const double base = style == TickStyle::bytes ? 1024 : 1000;
    int u = 0;
    while (a / std::pow(base, u) >= base * (1 - 1e-9) && u < 6) ++u;
    const std::string n = fmt("%.3g", v / std::pow(base, u));
    return style == TickStyle::bytes ? n + " " + bin[u] : n + dec[u];
  }
  // Sizes such as N = 32768 read best as 32K (1K = 1024, as for sequence lengths).
  if (a >= 1048576 && std::fmod(a, 1048576.0) == 0) return fmt("%.6g", v / 1048576) + "M";
  if (a >= 1024 && std::fmod(a, 1024.0) == 0) return fmt("%.6g", v / 1024) + "K";
  if (a >= 1e-3 && a < 1e5) return fmt("%.6g", v);
  const int e = static_cast<int>(std::lround(std::log10(a)));
  if (std::abs(a - std::pow(10.0, e)) < 1e-9 * a) return (v < 0 ? "-10" : "10") + superscript(e);
  return fmt("%.3g", v);
}

Scale make_scale(const Axis& axis, double lo, double hi) {
  Scale s;
  s.log = axis.log;
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 1;
  if (axis.log) {
    const double b = axis.log_base, lb = std::log(b);
    double L = std::log(lo) / lb, H = std::log(hi) / lb;
    if (H - L < 1e-9) L -= 0.5, H += 0.5;
    const double pad = 0.04 * (H - L);  // keep markers off the frame
    L -= pad, H += pad;
    if (axis.log_base == 10) {  // reach a decade tick at an end when it is near
      if (L - std::floor(L) < 0.35) L = std::floor(L);
      if (std::ceil(H) - H < 0.35) H = std::ceil(H);
    }
    s.lo = std::pow(b, L), s.hi = std::pow(b, H);
    const int k0 = static_cast<int>(std::ceil(L - 1e-9)), k1 = static_cast<int>(std::floor(H + 1e-9));
    int stride = 1;
    for (int st : {1, 2, 5, 10, 20, 50}) {
      stride = st;
      if ((k1 - k0 + 1) / st <= 8) break;
    }
    for (int k = k0; k <= k1; ++k)
      if (((k % stride) + stride) % stride == 0) s.ticks.push_back({std::pow(b, k), ""});
    if (s.ticks.size() < 2 && axis.log_base == 10) {  // under a decade: 1-2-5 ticks
      s.ticks.clear();
      for (int k = k0 - 1; k <= k1; ++k)
        for (double m : {1.0, 2.0, 5.0})
          if (const double v = m * std::pow(10.0, k); v >= s.lo && v <= s.hi) s.ticks.push_back({v, ""});
    }
    if (s.ticks.size() < 2) {
      s.ticks.clear();
      linear_ticks(s, axis.style, false);
    }
  } else {
    if (axis.from_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
    if (hi - lo <= 0) lo = lo == 0 ? 0 : lo - std::abs(lo) / 2, hi = hi == 0 ? 1 : hi + std::abs(hi) / 2;
    s.lo = lo, s.hi = hi;
    linear_ticks(s, axis.style, true);
  }
  for (Tick& t : s.ticks) t.label = tick_label(t.value, axis.style);
  return s;
}

namespace {

std::string chart_body(const Chart& c, const std::string& id) {
  // Ranges of what each axis must show.
  Range xr, yr, y2r;
  const Axis& y2axis = c.y2 ? *c.y2 : c.y;
  for (const Series& s : c.series)
    for (auto [x, y] : s.points) {
      const bool right = s.right_axis && c.y2;  // no second axis: everything on the left
      if (!usable(c.x, x) || !usable(right ? y2axis : c.y, y)) continue;
      xr.add(x);
      (right ? y2r : yr).add(y);
    }
  for (const PointLabel& l : c.labels)
    if (usable(c.x, l.x) && usable(c.y, l.y)) xr.add(l.x), yr.add(l.y);
  if (c.same_scale && !xr.empty() && !yr.empty()) {
    xr.add(yr.lo), xr.add(yr.hi);
    yr = xr;
  }
  const Scale sx = make_scale(c.x, xr.lo, xr.hi), sy = make_scale(c.y, yr.lo, yr.hi);
  const bool has_y2 = c.y2 && !y2r.empty();
  const Scale sy2 = has_y2 ? make_scale(*c.y2, y2r.lo, y2r.hi) : Scale{};

  // Layout: title, subtitle lines, legend rows, then the plot area.
  const std::vector<std::string> sub = wrap(c.subtitle, 96);
  const double left = 94, right = kWidth - (has_y2 ? 94 : 30), bottom = kHeight - 64;
  std::vector<std::pair<double, int>> legend_pos;  // x and row of each entry
  double lx = left;
  int row = 0;
  auto place = [&](const std::string& name) {
    const double w = 44 + kCharWidth * static_cast<double>(name.size());
    if (lx + w > right && lx > left) lx = left, ++row;
    legend_pos.push_back({lx, row});
    lx += w;
  };
  for (const Series& s : c.series) place(s.name);
  for (const RatioBand& b : c.bands) place(b.label);  // after the series: bands[i] is legend_pos[series + i]
  const double legend_y = 52 + 19.0 * static_cast<double>(sub.size());
  const double top = legend_y + (legend_pos.empty() ? 0 : 22.0 * (row + 1)) + 6;
  auto X = [&](double v) { return left + sx.fraction(v) * (right - left); };
  auto Y = [&](const Scale& s, double v) { return bottom - s.fraction(v) * (bottom - top); };

  std::string o;
  o += "<rect width=\"800\" height=\"500\" fill=\"white\"/>\n";
  o += "<text x=\"" + px(left) + "\" y=\"26\" font-size=\"19\" font-weight=\"bold\" fill=\"#222\">" +
       xml_escape(c.title) + "</text>\n";
  for (std::size_t i = 0; i < sub.size(); ++i)
    o += "<text x=\"" + px(left) + "\" y=\"" + px(46 + 19.0 * static_cast<double>(i)) +
         "\" font-size=\"14\" fill=\"#555\">" + xml_escape(sub[i]) + "</text>\n";

  // Gridlines, frame, ticks and axis titles.
  o += "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  for (const Tick& t : sx.ticks)
    o += "<line x1=\"" + px(X(t.value)) + "\" y1=\"" + px(top) + "\" x2=\"" + px(X(t.value)) + "\" y2=\"" + px(bottom) + "\"/>\n";
  for (const Tick& t : sy.ticks)
    o += "<line x1=\"" + px(left) + "\" y1=\"" + px(Y(sy, t.value)) + "\" x2=\"" + px(right) + "\" y2=\"" + px(Y(sy, t.value)) + "\"/>\n";
  o += "</g>\n<rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" + px(right - left) + "\" height=\"" +
       px(bottom - top) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  o += "<g font-size=\"14\" fill=\"#333\">\n";
  for (const Tick& t : sx.ticks)
    o += "<text x=\"" + px(X(t.value)) + "\" y=\"" + px(bottom + 20) + "\" text-anchor=\"middle\">" + xml_escape(t.label) + "</text>\n";
  for (const Tick& t : sy.ticks)
    o += "<text x=\"" + px(left - 7) + "\" y=\"" + px(Y(sy, t.value) + 5) + "\" text-anchor=\"end\">" + xml_escape(t.label) + "</text>\n";
  if (has_y2)
    for (const Tick& t : sy2.ticks)
      o += "<text x=\"" + px(right + 7) + "\" y=\"" + px(Y(sy2, t.value) + 5) + "\">" + xml_escape(t.label) + "</text>\n";
  o += "</g>\n<g font-size=\"15\" fill=\"#222\" text-anchor=\"middle\">\n";
  o += "<text x=\"" + px((left + right) / 2) + "\" y=\"" + px(bottom + 48) + "\">" + xml_escape(c.x.title) + "</text>\n";
  o += "<text transform=\"translate(20 " + px((top + bottom) / 2) + ") rotate(-90)\">" + xml_escape(c.y.title) + "</text>\n";
  if (has_y2)
    o += "<text transform=\"translate(" + px(kWidth - 16) + " " + px((top + bottom) / 2) + ") rotate(90)\">" +
         xml_escape(c.y2->title) + "</text>\n";
  o += "</g>\n";

  // Series, clipped to the plot area (a little outside it, for markers).
  o += "<clipPath id=\"plot-area" + id + "\"><rect x=\"" + px(left - 6) + "\" y=\"" + px(top - 6) + "\" width=\"" +
       px(right - left + 12) + "\" height=\"" + px(bottom - top + 12) + "\"/></clipPath>\n";
  o += "<clipPath id=\"plot-frame" + id + "\"><rect x=\"" + px(left) + "\" y=\"" + px(top) + "\" width=\"" +
       px(right - left) + "\" height=\"" + px(bottom - top) + "\"/></clipPath>\n";
  // Bands around y = x, under everything else: lines y = f x and y = x / f.
  if (!c.bands.empty()) {
    o += "<g class=\"bands\" clip-path=\"url(#plot-frame" + id + ")\">\n";
    for (const RatioBand& b : c.bands) {
      const double lo = sx.lo, hi = sx.hi, f = b.factor;
      o += "<polygon fill=\"#2b8a3e\" fill-opacity=\"0.09\" stroke=\"#2b8a3e\" stroke-opacity=\"0.35\" points=\"" +
           px(X(lo)) + "," + px(Y(sy, lo * f)) + " " + px(X(hi)) + "," + px(Y(sy, hi * f)) + " " + px(X(hi)) + "," +
           px(Y(sy, hi / f)) + " " + px(X(lo)) + "," + px(Y(sy, lo / f)) + "\"/>\n";
    }
    o += "</g>\n";
  }
  o += "<g clip-path=\"url(#plot-area" + id + ")\">\n";
  for (const Series& s : c.series) {
    const Scale& ys = s.right_axis && has_y2 ? sy2 : sy;
    const Axis& ya = s.right_axis && has_y2 ? *c.y2 : c.y;
    std::string pts, dots;
    for (auto [x, y] : s.points) {
      if (!usable(c.x, x) || !usable(ya, y)) continue;
      pts += (pts.empty() ? "" : " ") + px(X(x)) + "," + px(Y(ys, y));
      dots += marker(s.marker, X(x), Y(ys, y), s.line ? 3.8 : 4.6);
    }
    o += "<g class=\"series\" data-name=\"" + xml_escape(s.name) + "\" fill=\"" + xml_escape(s.color) + "\"" +
         (s.opacity < 1 ? " fill-opacity=\"" + fmt("%.2f", s.opacity) + "\"" : "") + ">";
    if (s.line && !pts.empty())
      o += "<polyline fill=\"none\" stroke=\"" + xml_escape(s.color) + "\" stroke-width=\"2.2\"" +
           (s.dash.empty() ? "" : " stroke-dasharray=\"" + xml_escape(s.dash) + "\"") + " points=\"" + pts + "\"/>";
    if (s.markers) o += dots;
    o += "</g>\n";
  }
  for (const PointLabel& l : c.labels) {
    if (!usable(c.x, l.x) || !usable(c.y, l.y)) continue;
    const double x = X(l.x), y = Y(sy, l.y);
    // Above the point, or below it when at the top; right of it unless that leaves the plot.
    const bool flip = x + 9 + kCharWidth * static_cast<double>(l.text.size()) > right;
    const bool below = y < top + 30;
    const std::string at = " x=\"" + px(flip ? x - 9 : x + 9) + "\" y=\"" + px(below ? y + 22 : y - 10) + "\" text-anchor=\"" +
                           (flip ? "end" : "start") + "\" font-size=\"14\"";
    o += "<circle cx=\"" + px(x) + "\" cy=\"" + px(y) + "\" r=\"5\" fill=\"#222\"/>";
    o += "<text" + at + " stroke=\"white\" stroke-width=\"4\" fill=\"white\">" + xml_escape(l.text) + "</text>";
    o += "<text" + at + " fill=\"#222\">" + xml_escape(l.text) + "</text>\n";
  }
  o += "</g>\n";

  // Legend: a line sample (and marker) per series, in rows above the plot.
  o += "<g class=\"legend\" font-size=\"14\" fill=\"#222\">\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const double x = legend_pos[i].first, y = legend_y + 22.0 * legend_pos[i].second;
    if (s.line)
      o += "<line x1=\"" + px(x) + "\" y1=\"" + px(y - 5) + "\" x2=\"" + px(x + 26) + "\" y2=\"" + px(y - 5) +
           "\" stroke=\"" + xml_escape(s.color) + "\" stroke-width=\"2.2\"" +
           (s.dash.empty() ? "" : " stroke-dasharray=\"" + xml_escape(s.dash) + "\"") + "/>";
    if (s.markers) o += "<g fill=\"" + xml_escape(s.color) + "\">" + marker(s.marker, x + 13, y - 5, 4.2) + "</g>";
    o += "<text x=\"" + px(x + 33) + "\" y=\"" + px(y) + "\">" + xml_escape(s.name) + "</text>\n";
  }
  // A band's swatch has the shade inside it: its own and every wider band's.
  for (std::size_t i = 0; i < c.bands.size(); ++i) {
    const auto [x, r] = legend_pos[c.series.size() + i];
    const double y = legend_y + 22.0 * r;
    o += "<rect x=\"" + px(x) + "\" y=\"" + px(y - 11) + "\" width=\"26\" height=\"12\" fill=\"#2b8a3e\" fill-opacity=\"" +
         fmt("%.2f", 1 - std::pow(1 - 0.09, static_cast<double>(i + 1))) + "\" stroke=\"#2b8a3e\" stroke-opacity=\"0.35\"/>";
    o += "<text x=\"" + px(x + 33) + "\" y=\"" + px(y) + "\">" + xml_escape(c.bands[i].label) + "</text>\n";
  }
  o += "</g>\n";
  return o;
}

std::string svg_open(double height, const std::string& title) {
  const std::string h = fmt("%.0f", height);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"" + h + "\" viewBox=\"0 0 800 " + h + "\" font-family=\"" + std::string(kFonts) + "\" role=\"img\">\n<title>" + xml_escape(title) +
         "</title>\n";
}

}  // namespace

std::string render_svg(const Chart& c) { return svg_open(kHeight, c.title) + chart_body(c, "") + "</svg>\n"; }

std::string render_svg(const std::vector<Chart>& panels) {
  if (panels.size() == 1) return render_svg(panels[0]);
  std::string title, body;
  for (std::size_t i = 0; i < panels.size(); ++i) {
    title += (i ? "; " : "") + panels[i].title;
    body += "<g transform=\"translate(0 " + fmt("%.0f", kHeight * static_cast<double>(i)) + ")\">\n" +
            chart_body(panels[i], "-" + std::to_string(i + 1)) + "</g>\n";
  }
  return svg_open(kHeight * static_cast<double>(panels.size()), title) + body + "</svg>\n";
}

}  // namespace fasim
