import FuzzDriver

runFuzzing(fuzzConfiguration)
