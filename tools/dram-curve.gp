# The memory controller curve of docs/machine-model.md: build/dram-curve > curve.tsv &&
# gnuplot -e "data='curve.tsv'" tools/dram-curve.gp   (writes docs/img/dram-controller-curve.png)
if (!exists("data")) data = "curve.tsv"
set terminal pngcairo size 1000,420 font ",10"
set output "docs/img/dram-controller-curve.png"
set multiplot layout 1,2
set grid
set title "random 64-byte transactions (RFO + write-back), one ICX socket"
set xlabel "transactions per second (10^9)"
set ylabel "controller queueing delay (ns)"
set yrange [0:200]
plot data index 0 using ($1/1e9):3 with lines lw 2 title "model (DDR4-3200, 8 x 1R, tFAW)"
set title "sequential reads: model vs MLC's published curve (2 x 8360Y, per socket)"
set xlabel "GB/s per socket"
set ylabel "latency above idle (ns)"
plot data index 1 using 1:3 with lines lw 2 title "model", \
     "-" using 1:2 with linespoints pt 7 title "MLC (KU Leuven dump)"
20.5 7
87 21
148.5 65
175.9 175
e
unset multiplot
