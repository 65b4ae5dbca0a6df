import average
from federa_algorithm_tools import run

run(average)
