# gnuplot -e "datafile='X.dat'; outfile='X.png'; title='...'; ncol=N" predict.gp
# columns: cpus, one per variant, limit (simulated figures); the first
# line after the comment names them
set terminal pngcairo size 900,600 noenhanced
set output outfile
set title title
set xlabel "CPUs"
set ylabel "map+unmap per CPU per virtual second"
set logscale y
set key outside right
set grid
plot for [i=2:ncol] datafile using 1:i with linespoints title columnheader(i)
