//! Minimal SVG charts (lines and dots over a numeric x axis), written by hand so the
//! binary needs no drawing library. Output is deterministic.

use std::fmt::Write;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A polyline through the points.
    Line,
    /// A small dot per point.
    Dots,
}

/// One data series.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// SVG colour.
    pub colour: &'static str,
    /// How to draw it.
    pub mark: Mark,
    /// The points `(x, y)`.
    pub points: Vec<(f64, f64)>,
}

/// A chart: title, axis labels, series, and labelled x ticks.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Labelled ticks on the x axis `(x, label)`.
    pub x_ticks: Vec<(f64, String)>,
    /// The series, drawn in order.
    pub series: Vec<Series>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A "nice" step for about `n` intervals over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

impl Chart {
    /// Renders the chart as an SVG document.
    pub fn to_svg(&self) -> String {
        let (w, h) = (1100.0, 520.0);
        let (left, right, top, bottom) = (80.0, 20.0, 50.0, 70.0);
        let pts = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for &(x, y) in pts {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let ystep = nice_step(if y1 > 0.0 { y1 } else { 1.0 }, 8.0);
        let ymax = ((y1 / ystep).ceil() * ystep).max(ystep);
        let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
        let py = |y: f64| top + (1.0 - y / ymax) * (h - top - bottom);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="24" text-anchor="middle" font-size="16">{}</text>"#,
            w / 2.0,
            esc(&self.title)
        );
        // Grid and y ticks.
        let mut y = 0.0;
        while y <= ymax + ystep / 2.0 {
            let _ = writeln!(
                s,
                r##"<line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                py(y),
                w - right,
                py(y),
                left - 6.0,
                py(y) + 4.0,
                y
            );
            y += ystep;
        }
        for (x, label) in &self.x_ticks {
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{top}" x2="{:.1}" y2="{:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                px(*x),
                px(*x),
                h - bottom,
                px(*x),
                h - bottom + 16.0,
                esc(label)
            );
        }
        let _ = writeln!(
            s,
            r#"<rect x="{left}" y="{top}" width="{:.1}" height="{:.1}" fill="none" stroke="black"/>"#,
            w - left - right,
            h - top - bottom
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + (w - left - right) / 2.0,
            h - 20.0,
            esc(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
            top + (h - top - bottom) / 2.0,
            top + (h - top - bottom) / 2.0,
            esc(&self.y_label)
        );
        for (i, series) in self.series.iter().enumerate() {
            match series.mark {
                Mark::Line => {
                    let path: Vec<String> = series
                        .points
                        .iter()
                        .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                        .collect();
                    let _ = writeln!(
                        s,
                        r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
                        series.colour,
                        path.join(" ")
                    );
                }
                Mark::Dots => {
                    for &(x, y) in &series.points {
                        let _ = writeln!(
                            s,
                            r#"<circle cx="{:.1}" cy="{:.1}" r="2" fill="{}"/>"#,
                            px(x),
                            py(y),
                            series.colour
                        );
                    }
                }
            }
            // Legend.
            let ly = top + 16.0 + 18.0 * i as f64;
            let lx = left + 12.0;
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="{:.1}" width="14" height="4" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                ly - 4.0,
                series.colour,
                lx + 20.0,
                ly + 1.0,
                esc(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_chart() {
        let c = Chart {
            title: "t <1>".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_ticks: vec![(1.0, "(1)".into())],
            series: vec![Series {
                name: "a".into(),
                colour: "black",
                mark: Mark::Line,
                points: vec![(1.0, 2.0), (2.0, 3.0)],
            }],
        };
        let svg = c.to_svg();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("<polyline"));
        assert!(svg.contains("t &lt;1&gt;"));
        assert!(svg.ends_with("</svg>\n"));
    }
}
