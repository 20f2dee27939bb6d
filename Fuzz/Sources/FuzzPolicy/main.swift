import FuzzDriver

runFuzzing(fuzzPolicy)
