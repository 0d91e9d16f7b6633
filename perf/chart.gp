# perf/chart.gp: git vs reftab, in-process ns per op (log scale), with issue 8's targets.
# gnuplot -e "datafile='perf/results/chart.dat'; outfile='perf/results/chart.png'" perf/chart.gp
if (!exists("datafile")) datafile = 'perf/results/chart.dat'
if (!exists("outfile")) outfile = 'perf/results/chart.png'
set terminal pngcairo size 1000,520 noenhanced font ",10"
set output outfile
set title "reftab vs git's reftable library, same run, same tables (1M refs; ns per op, log scale; lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [1:30000]
set ylabel "ns per op"
set grid ytics
set key top left
set xtics rotate by -20
plot datafile using 2:xtic(1) title "git (same run)" lc rgb "#b0b0b0", \
     '' using 3 title "reftab (median)" lc rgb "#2a7ab0", \
     '' using 4 title "target" lc rgb "#e0a030" fs pattern 4
