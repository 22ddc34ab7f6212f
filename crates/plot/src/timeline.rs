//! A simulation's timeline as SVG: the frames as bars on top, one row per link shaded by
//! its utilisation over time, and the aggregate throughput below. Written by hand (not
//! through plotters: it is a Gantt-like drawing, not a chart of series), deterministic.

use std::fmt::Write as _;

/// One frame (timeframe) of the run: when its transfers started and the last one ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The frame's number, from 1.
    pub frame: usize,
    /// Its number of transfers.
    pub transfers: usize,
    /// When it started, seconds (infinite: never, and the frame is not drawn).
    pub start_s: f64,
    /// When it ended, seconds.
    pub end_s: f64,
}

/// An interval of constant rates: from `start` to the next segment's start (or the
/// makespan).
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// When it starts, seconds.
    pub start: f64,
    /// The aggregate throughput, bytes per second.
    pub throughput: f64,
    /// The utilisation, in [0, 1], of every link in use, by link index.
    pub links: Vec<(u32, f64)>,
}

/// What a timeline shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline<'a> {
    /// The title line (escaped here).
    pub title: String,
    /// The frames.
    pub frames: &'a [Frame],
    /// The links' names, by index.
    pub links: Vec<&'a str>,
    /// The rate history.
    pub segments: &'a [Segment],
    /// When the run ended, seconds.
    pub makespan_s: f64,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The drawing's geometry: where each part goes.
struct Layout {
    row: f64,
    left: f64,
    top: f64,
    w: f64,
    pw: f64,
    frames_h: f64,
    links_top: f64,
    links_h: f64,
    thr_top: f64,
    thr_h: f64,
    h: f64,
    span: f64,
}

impl Layout {
    fn new(links: usize, makespan_s: f64) -> Layout {
        let row = if links > 200 {
            2.0
        } else if links > 60 {
            5.0
        } else {
            12.0
        };
        let (left, right, top) = (140.0, 30.0, 60.0);
        let w = 1200.0;
        let frames_h = 30.0;
        let links_top = top + frames_h + 20.0;
        let links_h = row * links as f64;
        let thr_top = links_top + links_h + 30.0;
        let thr_h = 160.0;
        Layout {
            row,
            left,
            top,
            w,
            pw: w - left - right,
            frames_h,
            links_top,
            links_h,
            thr_top,
            thr_h,
            h: thr_top + thr_h + 60.0,
            span: makespan_s.max(1e-12),
        }
    }

    fn x(&self, t: f64) -> f64 {
        self.left + self.pw * t / self.span
    }
}

impl Timeline<'_> {
    /// The timeline as an SVG document.
    pub fn to_svg(&self) -> String {
        let g = Layout::new(self.links.len(), self.makespan_s);
        let (w, h, left) = (g.w, g.h, g.left);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{left}" y="25" font-size="16">{}</text>"#,
            esc(&self.title)
        );
        self.frames_svg(&g, &mut s);
        self.links_svg(&g, &mut s);
        self.throughput_svg(&g, &mut s);
        for k in 0..=10 {
            let t = g.span * k as f64 / 10.0;
            let _ = writeln!(
                s,
                r#"<text x="{:.2}" y="{}" text-anchor="middle" font-size="10">{:.4}</text>"#,
                g.x(t),
                g.thr_top + g.thr_h + 15.0,
                t
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time (s)</text>"#,
            left + g.pw / 2.0,
            g.thr_top + g.thr_h + 35.0
        );
        s.push_str("</svg>\n");
        s
    }

    fn frames_svg(&self, g: &Layout, s: &mut String) {
        let (top, frames_h) = (g.top, g.frames_h);
        let _ = writeln!(s, r#"<text x="10" y="{}">frames</text>"#, top + 20.0);
        for (i, f) in self.frames.iter().enumerate() {
            if !f.start_s.is_finite() {
                continue;
            }
            let colour = if i % 2 == 0 { "#4e79a7" } else { "#f28e2b" };
            let _ = writeln!(
                s,
                r#"<rect x="{:.2}" y="{top}" width="{:.2}" height="{frames_h}" fill="{colour}" fill-opacity="0.7"><title>frame {}: {} transfers, {:.6}-{:.6} s</title></rect>"#,
                g.x(f.start_s),
                (g.x(f.end_s) - g.x(f.start_s)).max(0.5),
                f.frame,
                f.transfers,
                f.start_s,
                f.end_s
            );
        }
    }

    /// Link utilisation: each link's consecutive segments of equal utilisation merged.
    fn links_svg(&self, g: &Layout, s: &mut String) {
        let (row, links_top, left) = (g.row, g.links_top, g.left);
        let n = self.links.len();
        let _ = writeln!(
            s,
            r#"<text x="10" y="{}">link utilisation</text>"#,
            links_top - 5.0
        );
        if row >= 12.0 {
            for (i, l) in self.links.iter().enumerate() {
                let _ = writeln!(
                    s,
                    r#"<text x="{}" y="{:.2}" text-anchor="end" font-size="10">{}</text>"#,
                    left - 5.0,
                    links_top + row * (i as f64 + 0.8),
                    esc(l)
                );
            }
        }
        let mut open: Vec<Option<(f64, f64)>> = vec![None; n]; // (start, utilisation)
        let close = |s: &mut String, l: usize, start: f64, u: f64, end: f64| {
            if u > 0.0 && end > start {
                let _ = writeln!(
                    s,
                    r##"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="#59a14f" fill-opacity="{:.3}"/>"##,
                    g.x(start),
                    links_top + row * l as f64,
                    (g.x(end) - g.x(start)).max(0.2),
                    row * 0.9,
                    u
                );
            }
        };
        for seg in self.segments {
            let mut now: Vec<f64> = vec![0.0; n];
            for &(l, u) in &seg.links {
                now[l as usize] = u;
            }
            for l in 0..n {
                match open[l] {
                    Some((_, u)) if (u - now[l]).abs() <= 1e-9 => {}
                    Some((start, u)) => {
                        close(s, l, start, u, seg.start);
                        open[l] = Some((seg.start, now[l]));
                    }
                    None => open[l] = Some((seg.start, now[l])),
                }
            }
        }
        for (l, o) in open.iter().enumerate() {
            if let Some((start, u)) = *o {
                close(s, l, start, u, self.makespan_s);
            }
        }
        let (pw, links_h) = (g.pw, g.links_h);
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{links_top}" width="{pw}" height="{links_h}" fill="none" stroke="#888"/>"##
        );
    }

    fn throughput_svg(&self, g: &Layout, s: &mut String) {
        let (thr_top, thr_h, left, pw) = (g.thr_top, g.thr_h, g.left, g.pw);
        let max_thr = self
            .segments
            .iter()
            .map(|g| g.throughput)
            .fold(0.0, f64::max)
            .max(1e-12);
        let y = |v: f64| thr_top + thr_h - thr_h * v / max_thr;
        let _ = writeln!(
            s,
            r#"<text x="10" y="{}">throughput</text><text x="10" y="{}" font-size="10">max {:.1} MB/s</text>"#,
            thr_top + 15.0,
            thr_top + 30.0,
            max_thr / 1e6
        );
        let mut pts = String::new();
        let mut last = 0.0;
        for seg in self.segments {
            let _ = write!(
                pts,
                "{:.2},{:.2} {:.2},{:.2} ",
                g.x(seg.start),
                y(last),
                g.x(seg.start),
                y(seg.throughput)
            );
            last = seg.throughput;
        }
        let _ = write!(pts, "{:.2},{:.2}", g.x(self.makespan_s), y(last));
        let _ = writeln!(
            s,
            r##"<polyline points="{pts}" fill="none" stroke="#e15759" stroke-width="1.5"/>"##
        );
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{thr_top}" width="{pw}" height="{thr_h}" fill="none" stroke="#888"/>"##
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_frames_links_and_throughput() {
        let frames = [Frame {
            frame: 1,
            transfers: 2,
            start_s: 0.0,
            end_s: 1.0,
        }];
        let segments = [Segment {
            start: 0.0,
            throughput: 2e6,
            links: vec![(0, 1.0), (1, 0.5)],
        }];
        let t = Timeline {
            title: "a<b".into(),
            frames: &frames,
            links: vec!["x", "y&z"],
            segments: &segments,
            makespan_s: 1.0,
        };
        let svg = t.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains(">a&lt;b</text>") && svg.contains(">y&amp;z</text>"));
        assert!(svg.contains("<title>frame 1: 2 transfers, 0.000000-1.000000 s</title>"));
        // Both links in use for the whole run: one utilisation bar each.
        assert_eq!(svg.matches("fill=\"#59a14f\"").count(), 2);
        assert!(svg.contains("max 2.0 MB/s"));
        assert_eq!(t.to_svg(), svg, "deterministic");
    }
}
