package io.synod.bench.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.AWTError;
import java.awt.HeadlessException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** PNG charts with XChart, drawn headless (no display on build machines). */
public final class Charts {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** One series of a line chart. */
    public record Series(String name, double[] x, double[] y) {
    }

    /**
     * A heatmap: cell (x, y) shows {@code values[y][x]}; NaN cells (not measured) are left empty.
     */
    public static HeatMapChart heatmap(String title, String xTitle, List<String> xLabels, String yTitle,
                                       List<String> yLabels, double[][] values) {
        return heatmap(title, xTitle, xLabels, yTitle, yLabels, values, Double.NaN, Double.NaN);
    }

    /**
     * A heatmap with a fixed colour scale [{@code scaleMin}, {@code scaleMax}] (NaN: fit to the data), so
     * that several heatmaps drawn side by side can be compared by colour.
     */
    public static HeatMapChart heatmap(String title, String xTitle, List<String> xLabels, String yTitle,
                                       List<String> yLabels, double[][] values, double scaleMin, double scaleMax) {
        HeatMapChart chart = new HeatMapChartBuilder().width(640).height(480).title(title)
                .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setShowValue(true);
        chart.getStyler().setHeatMapValueDecimalPattern("#0.0");
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(14f));
        List<Number[]> cells = new ArrayList<>();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int y = 0; y < yLabels.size(); y++) {
            for (int x = 0; x < xLabels.size(); x++) {
                double value = values[y][x];
                if (!Double.isNaN(value)) {
                    cells.add(new Number[] {x, y, value});
                    min = Math.min(min, value);
                    max = Math.max(max, value);
                }
            }
        }
        if (cells.isEmpty()) {
            cells.add(new Number[] {0, 0, 0.0});
            min = 0;
            max = 1;
        }
        if (!Double.isNaN(scaleMin)) {
            min = scaleMin;
        }
        if (!Double.isNaN(scaleMax)) {
            max = scaleMax;
        }
        if (min >= max) {
            max = min + 1;
        }
        chart.getStyler().setMin(min);
        chart.getStyler().setMax(max);
        chart.addSeries("ms", xLabels, yLabels, cells);
        return chart;
    }

    public static XYChart lines(String title, String xTitle, String yTitle, List<Series> series) {
        XYChart chart = new XYChartBuilder().width(720).height(480).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(14f));
        for (Series s : series) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int i = 0; i < s.x().length; i++) {
                if (!Double.isNaN(s.y()[i])) {
                    xs.add(s.x()[i]);
                    ys.add(s.y()[i]);
                }
            }
            if (!xs.isEmpty()) {
                chart.addSeries(s.name(), xs, ys).setMarker(SeriesMarkers.CIRCLE);
            }
        }
        return chart;
    }

    /** Grouped bars: one group per category, one bar per series ({@code values.get(series)[category]}). */
    public static CategoryChart bars(String title, String yTitle, List<String> categories,
                                     LinkedHashMap<String, double[]> values) {
        CategoryChart chart = new CategoryChartBuilder().width(720).height(480).title(title).yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(14f));
        for (Map.Entry<String, double[]> entry : values.entrySet()) {
            List<Double> ys = new ArrayList<>();
            for (double v : entry.getValue()) {
                ys.add(Double.isNaN(v) ? 0.0 : v);
            }
            chart.addSeries(entry.getKey(), categories, ys);
        }
        return chart;
    }

    /** Smallest and largest non-NaN value over several grids ({NaN, NaN} if there is none). */
    public static double[] range(Iterable<double[][]> grids) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double[][] grid : grids) {
            for (double[] row : grid) {
                for (double value : row) {
                    if (!Double.isNaN(value)) {
                        min = Math.min(min, value);
                        max = Math.max(max, value);
                    }
                }
            }
        }
        return min > max ? new double[] {Double.NaN, Double.NaN} : new double[] {min, max};
    }

    /** Writes one chart as a PNG; see {@link #write} for a host that cannot render it. */
    public static boolean savePng(Chart<?, ?> chart, Path file) throws IOException {
        return write(file, path -> BitmapEncoder.saveBitmap(chart, path, BitmapEncoder.BitmapFormat.PNG));
    }

    /** Several charts tiled into one PNG, {@code columns} per row; see {@link #write}. */
    public static <C extends Chart<?, ?>> boolean savePngGrid(List<C> charts, int columns, Path file) throws IOException {
        int rows = (charts.size() + columns - 1) / columns;
        return write(file, path -> BitmapEncoder.saveBitmap(charts, rows, columns, path, BitmapEncoder.BitmapFormat.PNG));
    }

    /** Draws and writes a chart file given its path. */
    @FunctionalInterface
    interface ChartWriter {
        void write(String path) throws IOException;
    }

    /**
     * Runs {@code writer} for {@code file}. A host that cannot render text (no fonts installed, a broken
     * font configuration: the JDK then fails inside its font manager) gets one line on stderr naming the
     * chart and the reason, and the run goes on: every chart has a CSV beside it with the same numbers,
     * so a measurement is never lost to a missing font. Failing to write the file itself is still an error.
     *
     * @return true if the file was written, false if the chart was skipped
     */
    static boolean write(Path file, ChartWriter writer) throws IOException {
        try {
            writer.write(file.toString());
            return true;
        } catch (IOException e) {
            throw e;
        } catch (RuntimeException | Error e) {
            if (!cannotRender(e)) {
                throw e;
            }
            System.err.println("chart " + file.getFileName() + " skipped: this host cannot render it (" + e
                    + "); the CSV beside it holds the same data");
            return false;
        }
    }

    /** Whether {@code failure} comes from the JDK's font or graphics stack rather than from the chart's data. */
    static boolean cannotRender(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LinkageError || t instanceof InternalError || t instanceof AWTError
                    || t instanceof HeadlessException) {
                return true;
            }
            for (StackTraceElement frame : t.getStackTrace()) {
                String name = frame.getClassName();
                if (name.startsWith("sun.font.") || name.startsWith("sun.awt.") || name.startsWith("java.awt.Font")) {
                    return true;
                }
            }
        }
        return false;
    }
}
