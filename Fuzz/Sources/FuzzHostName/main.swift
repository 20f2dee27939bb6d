import FuzzDriver

runFuzzing(fuzzHostName)
