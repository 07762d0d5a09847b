//! A regression tree flattened into an array of nodes: what model files store and `predict` walks.
//!
//! smartcore's own serialisation carries its private layout (phantom types, fit parameters); storing
//! our own flat form keeps model files small, readable, and independent of smartcore's version.

use serde::{Deserialize, Serialize};
use smartcore::linalg::basic::matrix::DenseMatrix;
use smartcore::tree::decision_tree_regressor::DecisionTreeRegressor;

/// The smartcore tree type the trainer fits.
pub type SmartTree = DecisionTreeRegressor<f64, f64, DenseMatrix<f64>, Vec<f64>>;

/// One node: a split `x[feature] <= value ? yes : no`, or a leaf predicting `value`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "NodeRepr", into = "NodeRepr")]
pub struct Node {
    /// Feature (tuning parameter position) tested, or [`Node::LEAF`].
    pub feature: u32,
    /// Split threshold, or the prediction of a leaf.
    pub value: f64,
    /// Child taken when `x[feature] <= value`.
    pub yes: u32,
    /// Child taken otherwise.
    pub no: u32,
}

/// On-disk form of a node: `[feature, value, yes, no]`, feature −1 for a leaf (compact JSON).
#[derive(Serialize, Deserialize)]
struct NodeRepr(i64, f64, u32, u32);

impl TryFrom<NodeRepr> for Node {
    type Error = String;

    fn try_from(r: NodeRepr) -> Result<Node, String> {
        let feature = match r.0 {
            -1 => Node::LEAF,
            f => u32::try_from(f)
                .ok()
                .filter(|&f| f != Node::LEAF)
                .ok_or_else(|| {
                    format!("node feature {f} is neither -1 (a leaf) nor a tuning-parameter index")
                })?,
        };
        Ok(Node {
            feature,
            value: r.1,
            yes: r.2,
            no: r.3,
        })
    }
}

impl From<Node> for NodeRepr {
    fn from(n: Node) -> NodeRepr {
        let feature = if n.is_leaf() {
            -1
        } else {
            i64::from(n.feature)
        };
        NodeRepr(feature, n.value, n.yes, n.no)
    }
}

impl Node {
    /// Marker of a leaf in [`Node::feature`].
    pub const LEAF: u32 = u32::MAX;

    /// A leaf predicting `value`.
    pub fn leaf(value: f64) -> Node {
        Node {
            feature: Node::LEAF,
            value,
            yes: 0,
            no: 0,
        }
    }

    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.feature == Node::LEAF
    }
}

/// A regression tree; node 0 is the root and children always come after their parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Vec<Node>", into = "Vec<Node>")]
pub struct FlatTree {
    nodes: Vec<Node>,
    /// The nodes as prediction walks them: leaves loop to themselves, so a fixed number of steps
    /// reaches every leaf without a branch per step.
    steps: Vec<Node>,
    /// Edges on the longest root-to-leaf path.
    depth: usize,
}

impl From<Vec<Node>> for FlatTree {
    fn from(nodes: Vec<Node>) -> FlatTree {
        let mut steps = nodes.clone();
        let mut level = vec![0usize; nodes.len()];
        for (i, n) in steps.iter_mut().enumerate() {
            if n.is_leaf() {
                *n = Node {
                    feature: 0,
                    value: n.value,
                    yes: i as u32,
                    no: i as u32,
                };
            } else {
                // Out-of-order children are refused by `validate`; skip them here, never index out.
                let below = level[i] + 1;
                for c in [n.yes as usize, n.no as usize] {
                    if c > i && c < level.len() {
                        level[c] = below;
                    }
                }
            }
        }
        let depth = level.iter().copied().max().unwrap_or(0);
        FlatTree {
            nodes,
            steps,
            depth,
        }
    }
}

impl From<FlatTree> for Vec<Node> {
    fn from(t: FlatTree) -> Vec<Node> {
        t.nodes
    }
}

impl FlatTree {
    /// A tree that predicts `value` everywhere (a counter constant over the training data).
    pub fn constant(value: f64) -> FlatTree {
        FlatTree::from(vec![Node::leaf(value)])
    }

    /// Flattens a fitted smartcore tree.
    ///
    /// smartcore keeps its nodes private, but serialises them; reading that form is the one way to
    /// get at the structure without forking the crate. A unit test checks the flattened tree predicts
    /// exactly what smartcore predicts, so a layout change in smartcore fails loudly.
    pub fn from_smartcore(tree: &SmartTree) -> Result<FlatTree, String> {
        let json = serde_json::to_value(tree).map_err(|e| e.to_string())?;
        let raw = json
            .pointer("/tree_regressor/nodes")
            .and_then(|n| n.as_array())
            .ok_or("smartcore tree has no `tree_regressor.nodes`")?;
        let mut nodes = Vec::with_capacity(raw.len());
        for (i, n) in raw.iter().enumerate() {
            let bad = |what: &str| format!("smartcore tree node {i}: {what}");
            let output = n["output"].as_f64().ok_or_else(|| bad("no output"))?;
            let child = |key: &str| n[key].as_u64().map(|c| c as u32);
            nodes.push(match (child("true_child"), child("false_child")) {
                (Some(yes), Some(no)) => Node {
                    feature: n["split_feature"]
                        .as_u64()
                        .ok_or_else(|| bad("no split feature"))?
                        as u32,
                    value: n["split_value"]
                        .as_f64()
                        .ok_or_else(|| bad("no split value"))?,
                    yes,
                    no,
                },
                _ => Node::leaf(output),
            });
        }
        let tree = FlatTree::from(nodes);
        tree.validate(usize::MAX)?;
        Ok(tree)
    }

    /// Checks the structure: a non-empty tree, children after parents and in range, one parent per
    /// node, features below `features`, finite values. Guarantees [`FlatTree::predict`] terminates
    /// without panicking and the depth [`FlatTree::predict_rows`] walks is every leaf's.
    pub fn validate(&self, features: usize) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("a tree has no nodes".into());
        }
        let mut parent: Vec<Option<usize>> = vec![None; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            if !n.value.is_finite() {
                return Err(format!("node {i} has a non-finite value"));
            }
            if n.is_leaf() {
                continue;
            }
            if n.feature as usize >= features {
                return Err(format!(
                    "node {i} tests feature {} of {features}",
                    n.feature
                ));
            }
            for c in [n.yes, n.no] {
                if c as usize <= i || c as usize >= self.nodes.len() {
                    return Err(format!("node {i} has child {c} out of order or range"));
                }
                // A shared child gets one level, wrong for one of its paths, in `FlatTree::from`.
                match parent[c as usize] {
                    Some(p) if p != i => {
                        return Err(format!("node {c} has two parents, nodes {p} and {i}"))
                    }
                    _ => parent[c as usize] = Some(i),
                }
            }
        }
        Ok(())
    }

    /// The prediction for one configuration (features in the model's parameter order).
    pub fn predict(&self, x: &[f64]) -> f64 {
        let mut i = 0;
        loop {
            let n = &self.steps[i];
            let next = if x[n.feature as usize] <= n.value {
                n.yes
            } else {
                n.no
            } as usize;
            if next == i {
                return n.value;
            }
            i = next;
        }
    }

    /// Predictions for many configurations: `rows` holds `out.len()` rows of `width` features.
    ///
    /// Walks several rows through the tree in lock step for a fixed number of steps: the walks are
    /// independent, so their memory loads overlap, and there is no hard-to-predict exit branch.
    pub fn predict_rows(&self, rows: &[f64], width: usize, out: &mut [f64]) {
        const LANES: usize = 8;
        debug_assert_eq!(rows.len(), out.len() * width);
        let mut outs = out.chunks_exact_mut(LANES);
        let mut blocks = rows.chunks_exact(LANES * width);
        for (o, block) in (&mut outs).zip(&mut blocks) {
            let mut at = [0usize; LANES];
            for _ in 0..self.depth {
                for (lane, i) in at.iter_mut().enumerate() {
                    let n = &self.steps[*i];
                    let x = block[lane * width + n.feature as usize];
                    *i = if x <= n.value { n.yes } else { n.no } as usize;
                }
            }
            for (v, &i) in o.iter_mut().zip(&at) {
                *v = self.steps[i].value;
            }
        }
        let rest = blocks.remainder();
        for (v, row) in outs
            .into_remainder()
            .iter_mut()
            .zip(rest.chunks_exact(width))
        {
            *v = self.predict(row);
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True for an empty tree (never the case for a validated one).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The value of a single-leaf tree, if it is one.
    pub fn as_constant(&self) -> Option<f64> {
        match self.nodes.as_slice() {
            [n] if n.is_leaf() => Some(n.value),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartcore::tree::decision_tree_regressor::DecisionTreeRegressorParameters;

    #[test]
    fn flattened_tree_predicts_exactly_what_smartcore_predicts() {
        let rows: Vec<[f64; 2]> = (0..64)
            .map(|i| [f64::from(i % 8), f64::from(i / 8)])
            .collect();
        let y: Vec<f64> = rows
            .iter()
            .map(|r| r[0] * r[0] + 10.0 * (r[1] > 3.0) as u8 as f64)
            .collect();
        let x = DenseMatrix::new(64, 2, rows.concat(), false).unwrap();
        for depth in [1, 3, 6] {
            let params = DecisionTreeRegressorParameters {
                seed: Some(7),
                ..Default::default()
            }
            .with_max_depth(depth);
            let tree = SmartTree::fit(&x, &y, params).unwrap();
            let flat = FlatTree::from_smartcore(&tree).unwrap();
            let expected = tree.predict(&x).unwrap();
            for (r, e) in rows.iter().zip(&expected) {
                assert_eq!(flat.predict(r), *e);
            }
            // In lock step too, with a remainder that is not a whole block.
            let mut batch = vec![0.0; 61];
            flat.predict_rows(&rows[..61].concat(), 2, &mut batch);
            assert_eq!(batch, expected[..61]);
            // Unseen values between and beyond the training ones still get a prediction.
            assert!(flat.predict(&[2.5, 100.0]).is_finite());
        }
    }

    #[test]
    fn nodes_round_trip_through_json_and_bad_trees_are_refused() {
        let tree = FlatTree::from(vec![
            Node {
                feature: 1,
                value: 0.5,
                yes: 1,
                no: 2,
            },
            Node::leaf(3.0),
            Node::leaf(-1.25),
        ]);
        let text = serde_json::to_string(&tree).unwrap();
        assert_eq!(text, "[[1,0.5,1,2],[-1,3.0,0,0],[-1,-1.25,0,0]]");
        let back: FlatTree = serde_json::from_str(&text).unwrap();
        assert_eq!(back, tree);
        assert_eq!(back.predict(&[0.0, 1.0]), -1.25);
        assert!(back.validate(2).is_ok());
        assert!(back.validate(1).unwrap_err().contains("feature 1"));
        let cyclic: FlatTree = serde_json::from_str("[[0,0.5,0,0]]").unwrap();
        assert!(cyclic.validate(1).unwrap_err().contains("out of order"));
        let shared: FlatTree =
            serde_json::from_str("[[0,0.5,1,2],[0,0.2,2,3],[-1,1.0,0,0],[-1,2.0,0,0]]").unwrap();
        assert_eq!(
            shared.validate(1).unwrap_err(),
            "node 2 has two parents, nodes 0 and 1"
        );
    }
}
