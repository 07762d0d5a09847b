//! SVG plots of a comparison: convergence against tests and against seconds, the distribution of
//! steps, and the summary score's curves.

use super::curves::Band;
use super::score::{SummaryScore, BUDGET_POINTS};
use super::StepStats;
use crate::data::WELL_PERFORMING_FACTOR;
use crate::error::{Error, Result};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const SIZE: (u32, u32) = (760, 480);
const FONT: &str = "sans-serif";

/// Distinguishable line colours (Tableau 10), in searcher order.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn drawing_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::file(path, format!("cannot draw the plot: {e}"))
}

/// One searcher's convergence band on one space.
pub struct BandSeries<'a> {
    /// Searcher name.
    pub name: &'a str,
    /// Best-so-far relative to the optimum.
    pub band: &'a Band,
}

fn y_top(series: &[BandSeries]) -> f64 {
    series
        .iter()
        .flat_map(|s| s.band.mean.iter().zip(&s.band.std).map(|(m, d)| m + d))
        .filter(|v| v.is_finite())
        .fold(1.5_f64, f64::max)
        * 1.05
}

/// Points of the band's upper and lower edges, as one closed outline (lower edge clipped at 1,
/// where no run can be).
fn outline(band: &Band) -> Vec<(f64, f64)> {
    let upper = band.x.iter().zip(band.mean.iter().zip(&band.std));
    let mut points: Vec<(f64, f64)> = upper.clone().map(|(&x, (m, d))| (x, m + d)).collect();
    points.extend(upper.rev().map(|(&x, (m, d))| (x, (m - d).max(1.0))));
    points
}

/// Best-so-far runtime relative to the optimum against tests (logarithmic axes), mean and a band
/// of one standard deviation per searcher, with the well-performing threshold dashed.
pub fn convergence_by_tests(path: &Path, title: &str, series: &[BandSeries]) -> Result<()> {
    let last = series
        .iter()
        .filter_map(|s| s.band.x.last().copied())
        .fold(2.0_f64, f64::max);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| drawing_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d((1.0..last).log_scale(), (1.0..y_top(series)).log_scale())
        .map_err(|e| drawing_error(path, e))?;
    chart
        .configure_mesh()
        .x_desc("empirical tests (log scale)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("best runtime so far / optimum (log scale)")
        .y_label_formatter(&|y| format!("{y}x"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| drawing_error(path, e))?;
    draw_bands(&mut chart, series, path)?;
    draw_threshold(&mut chart, (1.0, last), path)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, path)?;
    root.present().map_err(|e| drawing_error(path, e))
}

/// Best-so-far runtime relative to the optimum against simulated seconds (linear time axis,
/// logarithmic runtime axis), mean and a band of one standard deviation per searcher.
pub fn convergence_by_time(path: &Path, title: &str, series: &[BandSeries]) -> Result<()> {
    let last = series
        .iter()
        .filter_map(|s| s.band.x.last().copied())
        .fold(f64::MIN_POSITIVE, f64::max);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| drawing_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..last, (1.0..y_top(series)).log_scale())
        .map_err(|e| drawing_error(path, e))?;
    chart
        .configure_mesh()
        .x_desc("simulated tuning time, s")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("best runtime so far / optimum (log scale)")
        .y_label_formatter(&|y| format!("{y}x"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| drawing_error(path, e))?;
    draw_bands(&mut chart, series, path)?;
    draw_threshold(&mut chart, (0.0, last), path)?;
    legend(&mut chart, SeriesLabelPosition::UpperRight, path)?;
    root.present().map_err(|e| drawing_error(path, e))
}

type Chart<'a, X, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>;

fn draw_bands<'a, X, Y>(
    chart: &mut Chart<'a, X, Y>,
    series: &[BandSeries],
    path: &Path,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(std::iter::once(Polygon::new(outline(s.band), c.mix(0.12))))
            .map_err(|e| drawing_error(path, e))?;
    }
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        let points = s.band.x.iter().copied().zip(s.band.mean.iter().copied());
        chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map_err(|e| drawing_error(path, e))?
            .label(s.name.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(3)));
    }
    Ok(())
}

fn draw_threshold<'a, X, Y>(chart: &mut Chart<'a, X, Y>, x: (f64, f64), path: &Path) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let y = WELL_PERFORMING_FACTOR;
    chart
        .draw_series(DashedLineSeries::new(
            [(x.0, y), (x.1, y)],
            6,
            4,
            BLACK.stroke_width(1),
        ))
        .map_err(|e| drawing_error(path, e))?
        .label(format!("well-performing ({y}x optimum)"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], BLACK.stroke_width(1)));
    Ok(())
}

fn legend<'a, X, Y>(
    chart: &mut Chart<'a, X, Y>,
    position: SeriesLabelPosition,
    path: &Path,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(|e| drawing_error(path, e))
}

/// One searcher's distribution of steps on one space.
pub struct StepsSeries<'a> {
    /// Searcher name.
    pub name: &'a str,
    /// Share of runs that had found a well-performing configuration within 1, 2, … tests.
    pub found_within: &'a [f64],
    /// The steps' summary statistics, quoted in the legend.
    pub stats: &'a StepStats,
}

/// The distribution of steps to a well-performing configuration: the share of runs done within
/// each number of tests (logarithmic axis, so heavy tails show), mean / median / p90 in the legend.
pub fn steps_distribution(path: &Path, title: &str, series: &[StepsSeries]) -> Result<()> {
    let last = series
        .iter()
        .map(|s| s.found_within.len())
        .max()
        .unwrap_or(2)
        .max(2) as f64;
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| drawing_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(64)
        .build_cartesian_2d((1.0..last).log_scale(), 0.0..1.02)
        .map_err(|e| drawing_error(path, e))?;
    chart
        .configure_mesh()
        .x_desc("steps to a well-performing configuration (log scale)")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("share of runs done")
        .y_label_formatter(&|y| format!("{:.0}%", 100.0 * y))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(|e| drawing_error(path, e))?;
    for (i, s) in series.iter().enumerate() {
        let c = colour(i);
        // A step function: the share jumps at each number of tests.
        let mut points = vec![(1.0, 0.0)];
        let mut previous = 0.0;
        for (k, &share) in s.found_within.iter().enumerate() {
            let x = (k + 1) as f64;
            points.push((x, previous));
            points.push((x, share));
            previous = share;
        }
        points.push((last, previous));
        let label = format!(
            "{}: mean {:.1}, median {:.0}, p90 {}",
            s.name, s.stats.mean_steps, s.stats.median_steps, s.stats.p90_steps
        );
        chart
            .draw_series(LineSeries::new(points, c.stroke_width(2)))
            .map_err(|e| drawing_error(path, e))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(3)));
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight, path)?;
    root.present().map_err(|e| drawing_error(path, e))
}

/// The summary score's curves, against the test budget and against the time budget, one line
/// per searcher; 0 is random search, 1 the optimum.
pub fn summary(path: &Path, title: &str, scores: &[(String, SummaryScore)]) -> Result<()> {
    let root = SVGBackend::new(path, (1100, 460)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| drawing_error(path, e))?;
    let root = root
        .titled(title, (FONT, 18))
        .map_err(|e| drawing_error(path, e))?;
    let panels = root.split_evenly((1, 2));
    let lowest = scores
        .iter()
        .flat_map(|(_, s)| s.curve_tests.iter().chain(&s.curve_time))
        .filter(|v| v.is_finite())
        .fold(-0.1_f64, |a, &b| a.min(b))
        .max(-2.0);
    // Room below the curves for the legend.
    let bottom = lowest - 0.35 * (1.05 - lowest);
    for (panel, by_time) in panels.iter().zip([false, true]) {
        let mut chart = ChartBuilder::on(panel)
            .caption(
                if by_time {
                    "over the time budget"
                } else {
                    "over the test budget"
                },
                (FONT, 15),
            )
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..1.0, bottom..1.05)
            .map_err(|e| drawing_error(path, e))?;
        chart
            .configure_mesh()
            .x_desc(if by_time {
                "share of the time budget"
            } else {
                "share of the test budget"
            })
            .y_desc("performance (0 = random, 1 = optimum)")
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| drawing_error(path, e))?;
        for level in [0.0, 1.0] {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, level), (1.0, level)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(|e| drawing_error(path, e))?;
        }
        for (i, (name, s)) in scores.iter().enumerate() {
            let c = colour(i);
            let curve = if by_time {
                &s.curve_time
            } else {
                &s.curve_tests
            };
            let points = curve
                .iter()
                .enumerate()
                .map(|(j, &v)| ((j + 1) as f64 / BUDGET_POINTS as f64, v.max(bottom)));
            let label = format!("{name}: {:.2}", if by_time { s.time } else { s.tests });
            chart
                .draw_series(LineSeries::new(points, c.stroke_width(2)))
                .map_err(|e| drawing_error(path, e))?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(3))
                });
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight, path)?;
    }
    root.present().map_err(|e| drawing_error(path, e))
}

/// The plot directory, created if needed.
pub fn plot_dir(dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::invalid(format!(
            "--plot {}: cannot create the directory: {e}",
            dir.display()
        ))
    })?;
    Ok(dir.to_path_buf())
}
