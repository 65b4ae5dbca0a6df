import group_means
from federa_algorithm_tools import run

run(group_means)
