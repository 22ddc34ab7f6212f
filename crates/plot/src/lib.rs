//! SVG charts for liquid's studies: line and dot series over linear or logarithmic axes,
//! drawn with [plotters](https://docs.rs/plotters)' SVG backend.
//!
//! No system fonts are needed: plotters is built without its `ttf` and `ab_glyph`
//! features, so it sizes text with its built-in estimate and writes `<text>` elements that
//! the SVG viewer renders in its own `sans-serif`. Output is deterministic: the same
//! chart gives the same bytes.
//!
//! [`timeline`] draws a simulation's timeline (frames, link utilisation, throughput).
#![forbid(unsafe_code)]

pub mod timeline;

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use thiserror::Error;

/// Why a chart could not be drawn.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlotError {
    /// A colour that is not `#rrggbb`.
    #[error("series {series:?}: colour {colour:?} is not #rrggbb")]
    Colour {
        /// The series.
        series: String,
        /// The colour as given.
        colour: String,
    },
    /// The drawing backend failed.
    #[error("drawing the chart {title:?}: {why}")]
    Draw {
        /// The chart's title.
        title: String,
        /// The backend's message.
        why: String,
    },
}

/// An axis scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Linear; a y axis starts at 0.
    #[default]
    Linear,
    /// Base-10 logarithmic; points at or below 0 are left out.
    Log,
}

/// How tick values are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Units {
    /// Plain numbers.
    #[default]
    Plain,
    /// Bytes: `1 B`, `64 kB` (2^10), `16 MB` (2^20).
    Bytes,
    /// Seconds: `5 ms`, `2 s`.
    Seconds,
}

/// One axis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Axis {
    /// The axis label.
    pub label: String,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// How tick values are written.
    pub units: Units,
    /// Labelled ticks `(value, label)` written under the x axis instead of the automatic
    /// ones (x axis only; ignored when empty).
    pub ticks: Vec<(f64, String)>,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A polyline through the points.
    Line,
    /// A small dot per point.
    Dots,
    /// A polyline with a dot on each point.
    LineDots,
}

/// One data series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Colour, `#rrggbb`.
    pub colour: String,
    /// How to draw it.
    pub mark: Mark,
    /// Dashed line (lines only).
    pub dashed: bool,
    /// The points `(x, y)`, in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// A chart: title, axes and series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title.
    pub title: String,
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    /// The series, drawn in order.
    pub series: Vec<Series>,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

/// A qualitative palette (Tableau 10), for series without a colour of their own.
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
    "#9c755f", "#bab0ac",
];

fn colour(s: &Series) -> Result<RGBColor, PlotError> {
    let bad = || PlotError::Colour {
        series: s.name.clone(),
        colour: s.colour.clone(),
    };
    let hex = s.colour.strip_prefix('#').ok_or_else(bad)?;
    if hex.len() != 6 || !hex.is_ascii() {
        return Err(bad());
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
    Ok(RGBColor(byte(0)?, byte(2)?, byte(4)?))
}

/// Writes a value with its units, shortly.
pub fn format_value(v: f64, units: Units) -> String {
    let num = |x: f64| {
        let r = (x * 100.0).round() / 100.0;
        if r == r.trunc() {
            format!("{}", r as i64)
        } else {
            format!("{r}")
        }
    };
    match units {
        Units::Plain => {
            if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
                format!("{v:.0e}")
            } else {
                num(v)
            }
        }
        Units::Bytes => {
            let (mut x, mut unit) = (v, 0);
            const UNITS: [&str; 5] = ["B", "kB", "MB", "GB", "TB"];
            while x.abs() >= 1024.0 && unit + 1 < UNITS.len() {
                x /= 1024.0;
                unit += 1;
            }
            format!("{} {}", num(x), UNITS[unit])
        }
        Units::Seconds => {
            let a = v.abs();
            if v == 0.0 {
                "0".into()
            } else if a < 1e-6 {
                format!("{} ns", num(v * 1e9))
            } else if a < 1e-3 {
                format!("{} µs", num(v * 1e6))
            } else if a < 1.0 {
                format!("{} ms", num(v * 1e3))
            } else {
                format!("{} s", num(v))
            }
        }
    }
}

fn base(units: Units) -> f64 {
    if units == Units::Bytes {
        2.0
    } else {
        10.0
    }
}

fn range(
    values: impl Iterator<Item = f64>,
    scale: Scale,
    from_zero: bool,
    base: f64,
) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values {
        if v.is_finite() && (scale == Scale::Linear || v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if !lo.is_finite() {
        return match scale {
            Scale::Linear => (0.0, 1.0),
            Scale::Log => (1.0, 10.0),
        };
    }
    match scale {
        Scale::Linear => {
            if from_zero {
                lo = lo.min(0.0);
            }
            if hi <= lo {
                hi = lo + 1.0;
            }
            let pad = if from_zero { 0.0 } else { (hi - lo) * 0.02 };
            // Within ±f64::MAX/4, so that the width and the padding stay finite (the
            // axis' key points of an infinite range never end).
            let lim = f64::MAX / 4.0;
            let (lo, hi) = (
                (lo - pad).clamp(-lim, lim),
                (hi + (hi - lo) * 0.05).clamp(-lim, lim),
            );
            (lo, if hi > lo { hi } else { lo + lim })
        }
        Scale::Log => {
            // Whole powers of the base around the data, finite (1e308 on an axis of powers
            // of 10 ends at f64::MAX, not at 1e309 = inf).
            let lo = base.powf(lo.log(base).floor()).max(f64::MIN_POSITIVE);
            let mut hi = base.powf(hi.log(base).ceil()).min(f64::MAX);
            if hi <= lo {
                hi = (lo * base).min(f64::MAX);
            }
            // At most 1e300 between the ends: plotters counts the axis' powers from
            // hi / lo, and an infinite ratio (2.2e-308 to 1.8e308) never ends counting.
            // Values further below are outside the drawing.
            (lo.max(hi / 1e300), hi)
        }
    }
}

impl Chart {
    /// Renders the chart as an SVG document.
    pub fn to_svg(&self) -> Result<String, PlotError> {
        let colours = self
            .series
            .iter()
            .map(colour)
            .collect::<Result<Vec<_>, _>>()?;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, self.size).into_drawing_area();
            self.draw(&root, &colours).map_err(|why| PlotError::Draw {
                title: self.title.clone(),
                why,
            })?;
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        Ok(out)
    }

    fn draw(
        &self,
        root: &DrawingArea<SVGBackend<'_>, Shift>,
        colours: &[RGBColor],
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let x = range(
            xs.chain(self.x.ticks.iter().map(|t| t.0)),
            self.x.scale,
            false,
            base(self.x.units),
        );
        let y = range(ys, self.y.scale, true, base(self.y.units));
        let (bx, by) = (base(self.x.units), base(self.y.units));
        let mut builder = ChartBuilder::on(root);
        builder
            .caption(&self.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(if self.x.ticks.is_empty() { 40 } else { 50 })
            .y_label_area_size(70);
        // The four axis combinations have four coordinate types.
        match (self.x.scale, self.y.scale) {
            (Scale::Linear, Scale::Linear) => {
                let c = builder.build_cartesian_2d(x.0..x.1, y.0..y.1).map_err(e)?;
                self.finish(root, c, colours)
            }
            (Scale::Log, Scale::Linear) => {
                let c = builder
                    .build_cartesian_2d((x.0..x.1).log_scale().base(bx), y.0..y.1)
                    .map_err(e)?;
                self.finish(root, c, colours)
            }
            (Scale::Linear, Scale::Log) => {
                let c = builder
                    .build_cartesian_2d(x.0..x.1, (y.0..y.1).log_scale().base(by))
                    .map_err(e)?;
                self.finish(root, c, colours)
            }
            (Scale::Log, Scale::Log) => {
                let c = builder
                    .build_cartesian_2d(
                        (x.0..x.1).log_scale().base(bx),
                        (y.0..y.1).log_scale().base(by),
                    )
                    .map_err(e)?;
                self.finish(root, c, colours)
            }
        }
    }

    fn finish<'a, X, Y>(
        &self,
        root: &DrawingArea<SVGBackend<'a>, Shift>,
        mut chart: ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
        colours: &[RGBColor],
    ) -> Result<(), String>
    where
        X: Ranged<ValueType = f64> + ValueFormatter<f64>,
        Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let xf = |v: &f64| format_value(*v, self.x.units);
        let yf = |v: &f64| format_value(*v, self.y.units);
        {
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(&self.x.label)
                .y_desc(&self.y.label)
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .label_style(("sans-serif", 12))
                .axis_desc_style(("sans-serif", 14));
            if !self.x.ticks.is_empty() {
                mesh.x_labels(0);
            }
            mesh.draw().map_err(e)?;
        }
        let visible = |&(px, py): &(f64, f64)| {
            px.is_finite()
                && py.is_finite()
                && (self.x.scale == Scale::Linear || px > 0.0)
                && (self.y.scale == Scale::Linear || py > 0.0)
        };
        for (s, &c) in self.series.iter().zip(colours) {
            let points: Vec<(f64, f64)> = s.points.iter().copied().filter(visible).collect();
            let line = matches!(s.mark, Mark::Line | Mark::LineDots);
            let dots = matches!(s.mark, Mark::Dots | Mark::LineDots);
            let style = c.stroke_width(2);
            if line && s.dashed {
                chart
                    .draw_series(DashedLineSeries::new(points.clone(), 6, 4, style))
                    .map_err(e)?;
            } else if line {
                chart
                    .draw_series(LineSeries::new(points.clone(), style))
                    .map_err(e)?;
            }
            if dots {
                chart
                    .draw_series(points.iter().map(|&p| Circle::new(p, 2, c.filled())))
                    .map_err(e)?;
            }
            // The legend entry (drawn by configure_series_labels below).
            let anno = chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(e)?;
            anno.label(&s.name).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
            });
        }
        if !self.series.is_empty() {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font(("sans-serif", 12))
                .draw()
                .map_err(e)?;
        }
        // Labelled x ticks, under the plotting area.
        if !self.x.ticks.is_empty() {
            let (y_lo, _) = (chart.y_range().start, chart.y_range().end);
            for (v, label) in &self.x.ticks {
                let (px, py) = chart.backend_coord(&(*v, y_lo));
                root.draw(&PathElement::new(
                    vec![(px, py), (px, py + 5)],
                    BLACK.stroke_width(1),
                ))
                .map_err(e)?;
                root.draw(&Text::new(
                    label.clone(),
                    (px, py + 8),
                    ("sans-serif", 11).into_font().color(&BLACK).pos(
                        plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Top,
                        ),
                    ),
                ))
                .map_err(e)?;
            }
        }
        root.present().map_err(e)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(x: Scale, y: Scale) -> Chart {
        Chart {
            title: "t <1> & more".into(),
            x: Axis {
                label: "message size".into(),
                scale: x,
                units: Units::Bytes,
                ticks: vec![],
            },
            y: Axis {
                label: "time".into(),
                scale: y,
                units: Units::Seconds,
                ticks: vec![],
            },
            series: vec![
                Series {
                    name: "LG".into(),
                    colour: "#1f4e9c".into(),
                    mark: Mark::LineDots,
                    dashed: false,
                    points: vec![(1.0, 0.005), (1024.0, 0.006), (1048576.0, 0.5)],
                },
                Series {
                    name: "direct".into(),
                    colour: PALETTE[1].into(),
                    mark: Mark::Line,
                    dashed: true,
                    points: vec![(1.0, 0.004), (1024.0, 0.0), (1048576.0, 0.9)],
                },
            ],
            size: (800, 500),
        }
    }

    #[test]
    fn renders_every_scale_deterministically() {
        for x in [Scale::Linear, Scale::Log] {
            for y in [Scale::Linear, Scale::Log] {
                let c = chart(x, y);
                let svg = c.to_svg().expect("draws");
                assert!(svg.starts_with("<svg"), "{svg}");
                assert!(svg.trim_end().ends_with("</svg>"));
                assert!(svg.contains("t &lt;1&gt; &amp; more"));
                assert!(svg.contains(">\nLG\n<") || svg.contains(">LG<"), "legend");
                assert!(svg.contains("#1F4E9C") || svg.contains("#1f4e9c"));
                assert_eq!(svg, c.to_svg().expect("draws"), "deterministic");
            }
        }
        let svg = chart(Scale::Log, Scale::Log).to_svg().expect("draws");
        // Log axes label decades with units.
        assert!(svg.contains("1 MB") && svg.contains("1 kB"), "{svg}");
        assert!(svg.contains("ms"));
    }

    /// Values near f64::MAX (a latency of 1e308 s) once made the axis range infinite,
    /// and the log axis' key points never ended.
    #[test]
    fn extreme_values_draw_in_finite_time() {
        for x in [Scale::Linear, Scale::Log] {
            for y in [Scale::Linear, Scale::Log] {
                let mut c = chart(x, y);
                c.series[0].points = vec![(1.0, 1e308), (1e308, 1.7e308), (2.0, 1e-320)];
                let svg = c.to_svg().expect("draws");
                assert!(svg.trim_end().ends_with("</svg>"));
            }
        }
    }

    #[test]
    fn labelled_ticks_are_drawn() {
        let mut c = chart(Scale::Linear, Scale::Linear);
        c.x.ticks = vec![(10.0, "(4)".into()), (500.0, "(8)".into())];
        let svg = c.to_svg().expect("draws");
        assert!(svg.contains("(4)") && svg.contains("(8)"));
    }

    #[test]
    fn bad_colours_are_named() {
        let mut c = chart(Scale::Log, Scale::Log);
        c.series[1].colour = "red".into();
        let e = c.to_svg().expect_err("bad colour");
        assert_eq!(
            e.to_string(),
            "series \"direct\": colour \"red\" is not #rrggbb"
        );
    }

    #[test]
    fn values_are_written_with_units() {
        assert_eq!(format_value(65536.0, Units::Bytes), "64 kB");
        assert_eq!(format_value(16777216.0, Units::Bytes), "16 MB");
        assert_eq!(format_value(1.0, Units::Bytes), "1 B");
        assert_eq!(format_value(0.005, Units::Seconds), "5 ms");
        assert_eq!(format_value(2.5, Units::Seconds), "2.5 s");
        assert_eq!(format_value(0.00002, Units::Seconds), "20 µs");
        assert_eq!(format_value(86.0, Units::Plain), "86");
    }
}
