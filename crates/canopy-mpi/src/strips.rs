//! Strips along x: which rank owns which columns of the neighbour grid.

/// The cut of the grid's columns into one strip per rank: rank `r` owns
/// columns `bounds[r]..bounds[r + 1]` (a strip may be empty).
///
/// The crowd's neighbour grid has square cells as wide as a neighbour query
/// reaches, and a query from column `c` reads columns `c - 1` to `c + 1`
/// only. Cutting the arena between columns therefore makes the halo one
/// column of cells on each side, whatever the strip's width, and a rank
/// that holds its columns plus that halo sees every neighbour, in the same
/// cells, that the whole crowd's grid would show it: perception and
/// avoidance give the same answer bit for bit.
///
/// Strips rather than a 2D grid of blocks or a kd-tree: a strip has two
/// neighbours, not eight, the halo is two columns whatever the rank count,
/// and balancing is cutting one cumulative histogram into equal parts.
/// Its cost is a halo that grows with the arena's height rather than with
/// the square root of a block's area; at 16 ranks over a square arena a
/// strip's halo is still two columns against a width of `cols / 16`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strips {
    bounds: Vec<usize>,
}

impl Strips {
    /// `ranks` strips of nearly equal width over `columns` columns.
    pub fn even(columns: usize, ranks: usize) -> Strips {
        let ranks = ranks.max(1);
        Strips {
            bounds: (0..=ranks).map(|r| r * columns / ranks).collect(),
        }
    }

    /// `ranks` strips holding nearly equal load, given the load of each
    /// column: each cut goes where the running total first reaches its
    /// share. Deterministic: every rank computes the same strips from the
    /// same histogram.
    pub fn balanced(load: &[u64], ranks: usize) -> Strips {
        let ranks = ranks.max(1);
        let total: u128 = load.iter().map(|&l| u128::from(l)).sum();
        let mut bounds = Vec::with_capacity(ranks + 1);
        bounds.push(0);
        let (mut column, mut sum) = (0usize, 0u128);
        for r in 1..ranks {
            let share = total * r as u128 / ranks as u128;
            while column < load.len() && sum + u128::from(load[column]) / 2 < share {
                sum += u128::from(load[column]);
                column += 1;
            }
            bounds.push(column);
        }
        bounds.push(load.len());
        Strips { bounds }
    }

    /// Ranks.
    pub fn ranks(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Columns in all.
    pub fn columns(&self) -> usize {
        self.bounds[self.ranks()]
    }

    /// Rank `r`'s columns.
    pub fn strip(&self, r: usize) -> std::ops::Range<usize> {
        self.bounds[r]..self.bounds[r + 1]
    }

    /// The rank that owns `column` (the last column's owner for a column
    /// past the end).
    pub fn owner(&self, column: usize) -> usize {
        let column = column.min(self.columns().saturating_sub(1));
        // The last strip starting at or before `column` that is not empty.
        self.bounds[1..].partition_point(|&b| b <= column)
    }

    /// The other ranks whose halo holds `column`: the owners of the
    /// columns beside it, when they are not its own owner.
    pub fn halo_ranks(&self, column: usize) -> impl Iterator<Item = usize> {
        let me = self.owner(column);
        let left = column.checked_sub(1).map(|c| self.owner(c));
        let right = (column + 1 < self.columns()).then(|| self.owner(column + 1));
        let right = right.filter(|&r| Some(r) != left);
        [left, right]
            .into_iter()
            .flatten()
            .filter(move |&r| r != me)
    }

    /// The largest load over the mean load, given each rank's load: 1 is
    /// perfect balance.
    pub fn imbalance(loads: &[u64]) -> f64 {
        let total: u64 = loads.iter().sum();
        let max = loads.iter().copied().max().unwrap_or(0);
        if total == 0 {
            return 1.0;
        }
        max as f64 * loads.len() as f64 / total as f64
    }

    /// Each rank's load under these strips, given each column's load.
    pub fn loads(&self, load: &[u64]) -> Vec<u64> {
        (0..self.ranks())
            .map(|r| load[self.strip(r)].iter().sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn even_strips_cover_every_column_once() {
        let strips = Strips::even(10, 4);
        let owners: Vec<usize> = (0..10).map(|c| strips.owner(c)).collect();
        assert_eq!(owners, [0, 0, 1, 1, 1, 2, 2, 3, 3, 3]);
        assert_eq!(strips.strip(1), 2..5);
    }

    #[test]
    fn balanced_strips_cut_where_the_load_reaches_each_share() {
        let load = [0, 0, 10, 10, 0, 0, 10, 10, 0, 0];
        let strips = Strips::balanced(&load, 4);
        assert_eq!(strips.loads(&load), [10, 10, 10, 10]);
        assert_eq!(Strips::imbalance(&strips.loads(&load)), 1.0);
        assert_eq!(Strips::imbalance(&Strips::even(10, 4).loads(&load)), 2.0);
    }

    #[test]
    fn a_crowd_in_one_column_gets_a_strip_of_its_own() {
        let strips = Strips::balanced(&[0, 0, 100, 0], 3);
        assert_eq!(
            (0..4).map(|c| strips.owner(c)).collect::<Vec<_>>(),
            [0, 0, 1, 2]
        );
        assert_eq!(strips.halo_ranks(2).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn empty_strips_own_nothing_and_need_no_halo() {
        let strips = Strips {
            bounds: vec![0, 2, 2, 4],
        };
        assert_eq!(strips.strip(1), 2..2);
        assert_eq!(
            (0..4).map(|c| strips.owner(c)).collect::<Vec<_>>(),
            [0, 0, 2, 2]
        );
        assert_eq!(strips.halo_ranks(1).collect::<Vec<_>>(), [2]);
        assert_eq!(strips.halo_ranks(2).collect::<Vec<_>>(), [0]);
        assert_eq!(strips.halo_ranks(0).count(), 0);
    }

    #[test]
    fn a_one_column_strip_sends_its_column_to_both_sides() {
        let strips = Strips::even(3, 3);
        assert_eq!(strips.halo_ranks(1).collect::<Vec<_>>(), [0, 2]);
    }
}
